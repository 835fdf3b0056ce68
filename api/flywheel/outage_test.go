package flywheel

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// offsetClock is a wall clock a test can move forward.
type offsetClock struct{ offset atomic.Int64 }

func (c *offsetClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *offsetClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// eachClockedEnv is eachTestEnv with a clock of its own per database.
func eachClockedEnv(t *testing.T, fn func(t *testing.T, e *testEnv, clock *offsetClock)) {
	t.Helper()
	for _, d := range modelstest.Open(t) {
		t.Run(d.Name, func(t *testing.T) {
			clock := &offsetClock{}
			fn(t, newTestEnvOn(t, d.DB, Options{Now: clock.now}), clock)
		})
	}
}

// TestClaim_ATemporalOutageLeavesClaimsHeartbeatsAndOutputsWorkingAndTheWorkflowsCatchUp:
// a claim no longer depends on Temporal (its grant is decided by the row
// and its notice waits in the outbox), so during an outage claims,
// heartbeats and outputs answer 200; once Temporal is back the reconciler
// tells every workflow of its grant and output, the outbox empties, and
// the outage cost no attempt.
func TestClaim_ATemporalOutageLeavesClaimsHeartbeatsAndOutputsWorkingAndTheWorkflowsCatchUp(t *testing.T) {
	eachClockedEnv(t, func(t *testing.T, e *testEnv, clock *offsetClock) {
		r := e.do(http.MethodPost, "/operator/v1/rollouts", e.opToken, []byte(`{"rollouts":[{"turn_input":"a","max_attempts":2},{"turn_input":"b","max_attempts":2}]}`))
		var enq struct {
			RolloutIDs []string `json:"rollout_ids"`
		}
		r.decode(t, &enq)
		e.temporal.mu.Lock()
		e.temporal.failSig = true
		e.temporal.mu.Unlock()

		r = e.do(http.MethodPost, "/flywheel/claim", e.agentKey, []byte(`{"max_rollouts":2}`))
		var claim struct {
			Rollouts []struct {
				RolloutID  string `json:"rollout_id"`
				APIKey     string `json:"api_key"`
				LeaseToken string `json:"lease_token"`
			} `json:"rollouts"`
		}
		r.decode(t, &claim)
		if r.Status != http.StatusOK || len(claim.Rollouts) != 2 {
			t.Fatalf("claim during the outage: %d %s, want both rollouts", r.Status, r.Body)
		}
		for _, c := range claim.Rollouts {
			if r := e.do(http.MethodPost, "/flywheel/rollouts/"+c.RolloutID+"/heartbeat", c.APIKey, nil, LeaseTokenHeader, c.LeaseToken); r.Status != http.StatusOK {
				t.Fatalf("heartbeat during the outage: %d %s", r.Status, r.Body)
			}
		}
		done := claim.Rollouts[0]
		if r := e.do(http.MethodPost, "/flywheel/rollouts/"+done.RolloutID+"/output", done.APIKey,
			[]byte(`{"final_text":"x","tool_calls":[],"llm_call_count":0}`), LeaseTokenHeader, done.LeaseToken); r.Status != http.StatusOK {
			t.Fatalf("output during the outage: %d %s", r.Status, r.Body)
		}
		if n := len(e.pendingNotices()); n != 2 {
			t.Fatalf("%d notices in the outbox during the outage, want 2 (one grant; the other's output superseded its grant)", n)
		}

		e.temporal.mu.Lock()
		e.temporal.failSig = false
		e.temporal.mu.Unlock()
		clock.advance(time.Minute) // past every notice's due time
		e.h.notices.reconcileOnce()
		e.eventually("the workflow is told of its grant", func() bool { return e.signalled(wf.LeaseSignal, claim.Rollouts[1].RolloutID) })
		e.eventually("the workflow is told of its output", func() bool { return e.signalled(wf.OutputSignal, done.RolloutID) })
		e.eventually("the outbox empties", func() bool { return len(e.pendingNotices()) == 0 })

		other := claim.Rollouts[1].RolloutID
		ro, _ := fwmodels.GetRollout(context.Background(), e.db, other)
		if ro.Attempts() != 1 {
			t.Fatalf("attempts %d, want 1: the outage burnt none", ro.Attempts())
		}
		res, err := fwmodels.ExpireLease(context.Background(), e.db, other, ro.LeaseEpoch, 0, clock.now().Add(time.Hour))
		if err != nil || res.Outcome != fwmodels.ExpiryRequeued {
			t.Fatalf("the lease expired: %+v %v, want requeued (attempt 1 of 2)", res, err)
		}
	})
}
