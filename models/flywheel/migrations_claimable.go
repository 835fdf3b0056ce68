package flywheel

import "gorm.io/gorm"

// claimableFunction was the pick of an all-projects claim on PostgreSQL
// until flywheel_claim (migrations_claim_function.go) took in the whole
// claim; it stayed for api replicas of that release during a rolling
// upgrade, until migrateQueueIndexes dropped it. It picks up to p_max claimable rollouts in enqueue order,
// locked FOR UPDATE SKIP LOCKED, each with its rank. It is a function for
// its SET clause alone. With statistics taken before a burst of enqueues
// (autovacuum analyzes a table only once a tenth of it has changed, and
// at most once a minute), the planner believes a handful of rows are
// queued and reads every queued row through a bitmap scan, then sorts
// them all to keep 16: a claim then costs time in proportion to the
// queue's depth (4,069 against 12,552 claims/s with 20,000 queued). With
// bitmap scans off it walks the claim index (status, created_at, id) in
// order and stops after p_max rows, whatever the statistics say. It is
// PL/pgSQL, not SQL, because PL/pgSQL keeps its query's plan for the
// session where a SQL function plans it again at every claim (in turns
// with a SQL twin, a median 7% more claims/s). Being
// VOLATILE (it locks rows), it reads with a snapshot of its own, taken
// after the calling statement's: a rollout enqueued in between may be
// picked but not seen by the update, which then leaves it queued.
const claimableFunction = `CREATE OR REPLACE FUNCTION flywheel_claimable(
		p_status text, p_now timestamptz, p_max bigint, p_owners text[], p_prefix text)
	RETURNS TABLE (id text, n bigint)
	LANGUAGE plpgsql VOLATILE
	SET enable_bitmapscan = off
	AS $$
	BEGIN
		RETURN QUERY SELECT locked.id::text, row_number() OVER (ORDER BY locked.created_at, locked.id) FROM (
			SELECT r.id, r.created_at FROM flywheel_rollouts r
			WHERE r.status = p_status AND r.deadline_at > p_now AND (r.owner = ANY(p_owners) OR r.owner LIKE p_prefix)
			ORDER BY r.created_at, r.id LIMIT p_max FOR UPDATE SKIP LOCKED) locked;
	END
	$$`

// migrateClaimableFunction creates flywheel_claimable on PostgreSQL; SQLite
// claims through claimSQLite and needs none.
func migrateClaimableFunction(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	return tx.Exec(claimableFunction).Error
}
