package flywheel_test

import (
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestExpireLease_AttemptsCountLeasesThatReachedAnAgentNotEpochs(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 2)
		for i := 0; i < 3; i++ { // a Temporal outage: every grant reverted
			g := claimOne(t, db, now, time.Minute)
			if err := fw.RevertGrant(ctx, db, id, g.Rollout.LeaseEpoch, now); err != nil {
				t.Fatal(err)
			}
		}
		g := claimOne(t, db, now, time.Minute)
		if g.Rollout.LeaseEpoch != 4 {
			t.Fatalf("epoch %d: fencing epochs still grow", g.Rollout.LeaseEpoch)
		}
		res, err := fw.ExpireLease(ctx, db, id, 4, 0, now.Add(2*time.Minute))
		if err != nil || res.Outcome != fw.ExpiryRequeued {
			t.Fatalf("first real attempt of 2 expired: %+v %v", res, err)
		}
		g = claimOne(t, db, now.Add(3*time.Minute), time.Minute)
		res, err = fw.ExpireLease(ctx, db, id, g.Rollout.LeaseEpoch, 0, now.Add(5*time.Minute))
		if err != nil || res.Outcome != fw.ExpiryExhausted {
			t.Fatalf("second real attempt of 2 expired: %+v %v", res, err)
		}
		if r, _ := fw.GetRollout(ctx, db, id); r.Attempts() != 2 {
			t.Fatalf("attempts %d", r.Attempts())
		}
	})
}
