package e2e

import (
	"net/http"
	"syscall"
	"testing"
	"time"
)

// TestFlywheel_ATemporalOutageLeavesLeasesWorkingAndTheWorkflowsCatchUp, on
// the production topology: with the Temporal server frozen (SIGSTOP: it
// accepts connections and answers nothing), claims, heartbeats and
// outputs answer 200 at once, since the database row decides them and the
// workflows' notices wait in the outbox; a lapsed lease is fenced by the
// row. Once Temporal answers again the workflows catch up: the rollout
// with an output completes, the lapsed one is re-queued without losing an
// attempt to the outage, and the next claim takes it.
func TestFlywheel_ATemporalOutageLeavesLeasesWorkingAndTheWorkflowsCatchUp(t *testing.T) {
	p := startProdStack(t, "GATEHOUSE_FLYWHEEL_LEASE_MIN=1s")
	r := p.Do(t, http.MethodPost, "/operator/v1/rollouts", p.OperatorToken, map[string]any{"rollouts": []any{
		map[string]any{"turn_input": "finishes", "max_attempts": 2}, map[string]any{"turn_input": "lapses", "max_attempts": 2}}})
	if r.Status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", r.Status, r.Body)
	}
	temporal := p.Prod.Temporal.Pid()
	if err := syscall.Kill(temporal, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(temporal, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)

	var c claimed
	start := time.Now()
	r = p.Do(t, http.MethodPost, "/flywheel/claim", p.APIKey, map[string]any{"max_rollouts": 2, "lease_s": 3})
	r.JSON(t, &c)
	if r.Status != http.StatusOK || len(c.Rollouts) != 2 || time.Since(start) > 5*time.Second {
		t.Fatalf("claim with Temporal frozen: %d %s after %s, want both rollouts at once", r.Status, r.Body, time.Since(start))
	}
	done, lapsed := c.Rollouts[0], c.Rollouts[1]
	for _, ro := range c.Rollouts {
		if r := p.Do(t, http.MethodPost, "/flywheel/rollouts/"+ro.RolloutID+"/heartbeat", ro.APIKey, nil, "Flywheel-Lease-Token", ro.LeaseToken); r.Status != http.StatusOK {
			t.Fatalf("heartbeat with Temporal frozen: %d %s", r.Status, r.Body)
		}
	}
	if r := p.Do(t, http.MethodPost, "/flywheel/rollouts/"+done.RolloutID+"/output", done.APIKey,
		map[string]any{"final_text": "ok", "tool_calls": []any{}, "llm_call_count": 0}, "Flywheel-Lease-Token", done.LeaseToken); r.Status != http.StatusOK {
		t.Fatalf("output with Temporal frozen: %d %s", r.Status, r.Body)
	}
	time.Sleep(4 * time.Second) // the second lease lapses
	if r := p.Do(t, http.MethodPost, "/flywheel/rollouts/"+lapsed.RolloutID+"/heartbeat", lapsed.APIKey, nil, "Flywheel-Lease-Token", lapsed.LeaseToken); r.Status != http.StatusConflict {
		t.Fatalf("heartbeat on a lapsed lease with Temporal frozen: %d %s, want 409 (fenced by the row)", r.Status, r.Body)
	}

	resume()
	var view struct {
		Status   string `json:"status"`
		Attempts int64  `json:"attempts"`
	}
	waitFor(t, 2*time.Minute, func() bool {
		p.Do(t, http.MethodGet, "/operator/v1/rollouts/"+done.RolloutID, p.OperatorToken, nil).JSON(t, &view)
		return view.Status == "completed"
	})
	waitFor(t, 2*time.Minute, func() bool {
		p.Do(t, http.MethodGet, "/operator/v1/rollouts/"+lapsed.RolloutID, p.OperatorToken, nil).JSON(t, &view)
		return view.Status == "queued"
	})
	if view.Attempts != 1 {
		t.Fatalf("the lapsed rollout used %d attempts, want 1: the outage cost none", view.Attempts)
	}
	var again claimed
	p.Do(t, http.MethodPost, "/flywheel/claim", p.APIKey, map[string]any{"max_rollouts": 2, "lease_s": 30}).JSON(t, &again)
	if len(again.Rollouts) != 1 || again.Rollouts[0].RolloutID != lapsed.RolloutID {
		t.Fatalf("after the outage the next claim took %+v, want the re-queued rollout", again.Rollouts)
	}
}
