package flywheel_test

import (
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestClaim_ConcurrentClaimersNeverShareARollout(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		const rollouts, claimers = 300, 24
		now := time.Now()
		for i := 0; i < rollouts; i++ {
			enqueue(t, db, now.Add(time.Hour), 3)
		}
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, claimers)
		for c := 0; c < claimers; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 3, time.Minute, time.Now())
					if err != nil {
						errs <- err
						return
					}
					if len(gs) == 0 {
						return
					}
					mu.Lock()
					for _, g := range gs {
						seen[g.Rollout.ID]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if len(seen) != rollouts {
			t.Fatalf("claimed %d distinct rollouts, want %d", len(seen), rollouts)
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("rollout %s handed out %d times", id, n)
			}
		}
	})
}
