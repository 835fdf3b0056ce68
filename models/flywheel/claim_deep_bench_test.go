package flywheel

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"
)

// BenchmarkClaim_PostgresDeepQueue leases from a queue 20,000 deep whose
// statistics were taken while it was empty (a burst of enqueues within
// autovacuum's minute), all-projects claims of 16 in turns: through
// flywheel_claim as Claim does ("function"), and by its query sent whole,
// as before the claim functions ("inline"), which the planner then
// answers with a bitmap scan and a sort of the whole queue. Each turn
// leases 1,600; the queue is refilled so it never drops below 20,000.
// Reports <variant>-claims/s. Run:
//
//	GATEHOUSE_TEST_DATABASE_URL=postgres://… go test ./models/flywheel -run '^$' -bench Claim_PostgresDeepQueue -benchtime 3x
func BenchmarkClaim_PostgresDeepQueue(b *testing.B) {
	db := freshPostgresSchema(b)
	statisticsOfAnEmptyQueue(b, db)
	const depth, turn = 20000, 1600
	queueAtOnce(b, db, depth+2*turn*b.N)
	variants := []struct {
		name  string
		claim func(*gorm.DB, Claimant, int, time.Duration, time.Time) ([]Grant, error)
		wall  time.Duration
	}{{name: "function", claim: claimOneStatement}, {name: "inline", claim: claimInline}}
	who := Claimant{CredentialID: "bench", AllProjects: true}
	b.ResetTimer()
	for round := range b.N {
		for k := range variants {
			v := &variants[(round+k)%len(variants)]
			start := time.Now()
			for leased := 0; leased < turn; {
				gs, err := v.claim(db.WithContext(context.Background()), who, 16, time.Hour, dbTime(time.Now()))
				if err != nil || len(gs) == 0 {
					b.Fatalf("%s: %v (%d leased)", v.name, err, leased)
				}
				leased += len(gs)
			}
			v.wall += time.Since(start)
		}
	}
	b.StopTimer()
	for _, v := range variants {
		b.ReportMetric(float64(turn*b.N)/v.wall.Seconds(), v.name+"-claims/s")
	}
}
