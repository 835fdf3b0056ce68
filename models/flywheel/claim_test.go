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

// A grant carries the rollout as enqueued and the lease just granted, the
// same on both dialects (PostgreSQL reads back named columns by position,
// so a column out of order shows here).
func TestClaim_GrantCarriesTheRolloutAndItsLease(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now().UTC().Truncate(time.Millisecond)
		task, meta := "task-7", `{"k":"v"}`
		deadline := now.Add(90 * time.Minute)
		in := fw.NewRollout{ID: fw.NewRolloutID(), Owner: fw.OwnerUnrestricted, TurnInput: "turn input ✓", TaskID: &task,
			Metadata: &meta, DeadlineAt: deadline, MaxAttempts: 4}
		if _, _, err := fw.Enqueue(ctx, db, in); err != nil {
			t.Fatal(err)
		}
		gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 5, 10*time.Minute, now)
		if err != nil || len(gs) != 1 {
			t.Fatalf("claim: %v, %d grants", err, len(gs))
		}
		g, r := gs[0], gs[0].Rollout
		wantExpiry := now.Add(10 * time.Minute)
		switch {
		case r.ID != in.ID || r.Owner != in.Owner || r.TurnInput != in.TurnInput || r.MaxAttempts != 4:
			t.Fatalf("rollout fields: %+v", r)
		case r.TaskID == nil || *r.TaskID != task || r.Metadata == nil || *r.Metadata != meta:
			t.Fatalf("task %v metadata %v", r.TaskID, r.Metadata)
		case !r.DeadlineAt.Equal(deadline) || r.CreatedAt.IsZero():
			t.Fatalf("deadline %v (want %v), created %v", r.DeadlineAt, deadline, r.CreatedAt)
		case r.Status != fw.StatusLeased || r.LeaseEpoch != 1 || r.LeaseSeconds != 600:
			t.Fatalf("lease: status %s epoch %d seconds %v", r.Status, r.LeaseEpoch, r.LeaseSeconds)
		case r.LeaseExpiresAt == nil || !r.LeaseExpiresAt.Equal(wantExpiry) || !g.ExpiresAt.Equal(wantExpiry):
			t.Fatalf("expiry %v / %v, want %v", r.LeaseExpiresAt, g.ExpiresAt, wantExpiry)
		case r.LeaseGrantedAt == nil || !r.LeaseGrantedAt.Equal(now) || r.LeaseGrantedExpiry == nil || !r.LeaseGrantedExpiry.Equal(wantExpiry):
			t.Fatalf("grant %v until %v", r.LeaseGrantedAt, r.LeaseGrantedExpiry)
		case g.LeaseToken == "" || g.APIKey == "" || g.LLMToken == "":
			t.Fatal("a grant shows its secrets")
		}
	})
}
