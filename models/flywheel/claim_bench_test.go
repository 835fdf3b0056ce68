package flywheel

import "testing"

// BenchmarkClaim_Postgres isolates the database half of a claim (no HTTP,
// no Temporal): 512 queued rollouts leased in sequential batches of 16 on
// PostgreSQL, by flywheel_claim as Claim does ("function") and by its
// query sent whole, planned by the session ("inline"), as before the
// claim functions. The variants take turns, each round led by the next,
// so a change of machine load hits them alike. Reports <variant>-claims/s
// and <variant>-client-cpu-us: this process's CPU per leased rollout.
// Run:
//
//	GATEHOUSE_TEST_DATABASE_URL=postgres://… go test ./models/flywheel -run '^$' -bench Claim_Postgres -benchtime 5x
func BenchmarkClaim_Postgres(b *testing.B) {
	db, _ := leasedRollouts(b, 0)
	claimInTurns(b, db, []*claimVariant{{name: "function", claim: claimOneStatement}, {name: "inline", claim: claimInline}},
		false, "-client-cpu-us")
}
