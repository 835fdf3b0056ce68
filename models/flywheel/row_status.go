package flywheel

// rowStatusIs is how a statement that addresses one rollout by its id tests
// the rollout's status: coalesce(status, <empty string>) = …, the same
// test (status is NOT NULL) in a form no index can serve, so PostgreSQL
// finds the row by its primary key alone. Written as status = …, the test
// is an index condition of the claim index (status, created_at, id), and
// the planner weighs that index against the primary key by the statistics
// of status, which go stale within minutes in a queue: taken after an
// enqueue they say "every row is queued", so a heartbeat's status =
// 'leased' looks as if it matched nothing, the claim index looks cheapest,
// and every heartbeat and output walks the claim index's entries of all
// leased rollouts (30 buffers a heartbeat at 2,000 leased, against 6 by
// the primary key). It names status unqualified: in each statement that
// uses it only the rollouts table has that column.
const rowStatusIs = "coalesce(status, '') = "
