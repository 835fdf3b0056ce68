package flywheel

import (
	"context"
	"net/http"
	"testing"
	"time"

	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// TestClaim_ATemporalOutageAnswers503AndBurnsNoAttempt: while Temporal
// cannot be told of a lease, every claim answers 503 with Retry-After;
// afterwards the rollout's first real lease is attempt 1 of 2, so its
// expiry re-queues it instead of excluding it as capacity.
func TestClaim_ATemporalOutageAnswers503AndBurnsNoAttempt(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	r := e.do(http.MethodPost, "/operator/v1/rollouts", e.opToken, []byte(`{"rollouts":[{"turn_input":"x","max_attempts":2}]}`))
	var enq struct {
		RolloutIDs []string `json:"rollout_ids"`
	}
	r.decode(t, &enq)
	id := enq.RolloutIDs[0]
	e.temporal.mu.Lock()
	e.temporal.failSig = true
	e.temporal.mu.Unlock()
	for i := 0; i < 3; i++ {
		r := e.do(http.MethodPost, "/flywheel/claim", e.agentKey, []byte(`{"max_rollouts":1}`))
		if r.Status != http.StatusServiceUnavailable {
			t.Fatalf("poll %d during the outage: %d %s, want 503", i, r.Status, r.Body)
		}
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("503 without Retry-After")
		}
	}
	e.temporal.mu.Lock()
	e.temporal.failSig = false
	e.temporal.mu.Unlock()
	if got := e.claimAll(t, e.agentKey); len(got) != 1 || got[0] != id {
		t.Fatalf("after the outage: %v", got)
	}
	ro, _ := fwmodels.GetRollout(context.Background(), e.db, id)
	res, err := fwmodels.ExpireLease(context.Background(), e.db, id, ro.LeaseEpoch, 0, time.Now().Add(10*time.Minute-time.Second))
	if err != nil || res.Outcome != fwmodels.ExpiryRequeued {
		t.Fatalf("the first real lease expired: %+v %v, want requeued (attempt 1 of 2)", res, err)
	}
	var v struct {
		Attempts int64 `json:"attempts"`
	}
	e.do(http.MethodGet, "/operator/v1/rollouts/"+id, e.opToken, nil).decode(t, &v)
	if v.Attempts != 1 {
		t.Fatalf("attempts %d, want 1 (leases that reached an agent)", v.Attempts)
	}
}
