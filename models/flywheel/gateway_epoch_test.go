package flywheel_test

import (
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestGateway_CountsPerLeaseEpochAndAnEndedLeasesURLIsGone: a rollout whose
// first lease made two calls and expired is retried; its second lease makes
// one call. The count reconciled against the output is the second lease's,
// and the first lease's llm_url answers ErrGone (410), expired or
// superseded, counting nothing.
func TestGateway_CountsPerLeaseEpochAndAnEndedLeasesURLIsGone(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		id := enqueue(t, db, now.Add(time.Hour), 3)
		g1 := claimOne(t, db, now, 10*time.Second)
		record := func(epoch int64, at time.Time) {
			t.Helper()
			c := fw.GatewayCall{ID: fw.NewCallID(), RolloutID: id, Epoch: epoch, Endpoint: "chat/completions", Completion: true, Status: 200, RequestSHA256: "x", StartedAt: at}
			if err := fw.RecordCall(ctx, db, c); err != nil {
				t.Fatal(err)
			}
		}
		record(1, now)
		record(1, now)
		if _, err := fw.ResolveGateway(ctx, db, g1.LLMToken, g1.APIKey, now.Add(11*time.Second)); !errors.Is(err, fw.ErrGone) {
			t.Fatalf("an expired (not yet revoked) lease's llm_url: %v, want ErrGone", err)
		}
		if res, err := fw.ExpireLease(ctx, db, id, 1, 0, now.Add(11*time.Second)); err != nil || res.Outcome != fw.ExpiryRequeued {
			t.Fatalf("expire: %+v %v", res, err)
		}
		g2 := claimOne(t, db, now.Add(12*time.Second), time.Minute)
		if _, err := fw.ResolveGateway(ctx, db, g1.LLMToken, g1.APIKey, now.Add(13*time.Second)); !errors.Is(err, fw.ErrGone) {
			t.Fatalf("a superseded lease's llm_url: %v, want ErrGone", err)
		}
		l, err := fw.ResolveGateway(ctx, db, g2.LLMToken, g2.APIKey, now.Add(13*time.Second))
		if err != nil || l.Epoch != 2 {
			t.Fatalf("current lease: %+v %v", l, err)
		}
		record(2, now.Add(13*time.Second))
		record(1, now.Add(14*time.Second)) // the first lease's stream finishing late
		r, _ := fw.GetRollout(ctx, db, id)
		if r.LLMCallsObserved != 1 {
			t.Fatalf("the second lease made 1 call; observed %d (counted across leases)", r.LLMCallsObserved)
		}
		hist, _ := fw.LeaseHistory(ctx, db, id)
		if len(hist) != 2 || hist[0].LLMCalls != 3 || hist[1].LLMCalls != 1 {
			t.Fatalf("per-lease counts: %+v", hist)
		}
	})
}
