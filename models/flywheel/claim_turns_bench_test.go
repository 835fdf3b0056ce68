package flywheel

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"
)

// claimVariant is one way of claiming that a claim benchmark compares.
type claimVariant struct {
	name      string
	claim     func(*gorm.DB, Claimant, int, time.Duration, time.Time) ([]Grant, error)
	wall, cpu time.Duration
	n         int
}

// claimInTurns enqueues 512 rollouts for each variant in each of b.N
// rounds and has it lease them in sequential batches of 16, the variants
// taking turns, each round led by the next (a change of machine load hits
// them alike). inTransaction wraps every claim in a transaction of its own,
// as Claim does on SQLite. It reports <variant>-claims/s and
// <variant><cpuSuffix> (this process's CPU per leased rollout).
func claimInTurns(b *testing.B, db *gorm.DB, variants []*claimVariant, inTransaction bool, cpuSuffix string) {
	who := Claimant{CredentialID: "bench", AllProjects: true}
	ctx := context.Background()
	claimOnce := func(v *claimVariant) ([]Grant, error) {
		if !inTransaction {
			return v.claim(db.WithContext(ctx), who, 16, time.Hour, dbTime(time.Now()))
		}
		var gs []Grant
		err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			var err error
			gs, err = v.claim(tx, who, 16, time.Hour, dbTime(time.Now()))
			return err
		})
		return gs, err
	}
	b.ResetTimer()
	for round := range b.N {
		for k := range variants {
			v := variants[(round+k)%len(variants)]
			b.StopTimer()
			now := time.Now()
			for range 512 {
				if _, _, err := Enqueue(ctx, db, NewRollout{ID: NewRolloutID(), TurnInput: "bench", DeadlineAt: now.Add(2 * time.Hour), MaxAttempts: 3}); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			start, cpu := time.Now(), processCPU(b)
			for leased := 0; leased < 512; {
				gs, err := claimOnce(v)
				if err != nil || len(gs) == 0 {
					b.Fatalf("%s: %v (%d leased)", v.name, err, leased)
				}
				leased += len(gs)
			}
			v.wall, v.cpu, v.n = v.wall+time.Since(start), v.cpu+processCPU(b)-cpu, v.n+512
		}
	}
	b.StopTimer()
	for _, v := range variants {
		b.ReportMetric(float64(v.n)/v.wall.Seconds(), v.name+"-claims/s")
		b.ReportMetric(float64(v.cpu.Microseconds())/float64(v.n), v.name+cpuSuffix)
	}
}
