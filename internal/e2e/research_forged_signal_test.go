package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestResearch_SignalsForgedThroughTemporalOpenNoGate performs the attack
// of anyone who reaches the Temporal frontend (a sandbox Pod, the Temporal
// UI): it sends the gate signals straight to the experiment workflows with
// the values the agent knows (its real artifact and review request ids, a
// plan's real digest, a pass). No gate opens, the honest flow still works,
// and every forgery is logged in the workflow's rejected_signals.
func TestResearch_SignalsForgedThroughTemporalOpenNoGate(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "sec-forged")
	a := connectResearch(t, s, mintProjectKey(t, s, "forger", pid))
	tc := s.Client(t)
	forge := func(expID, signal string, payload any) {
		t.Helper()
		if err := tc.SignalWorkflow(context.Background(), wf.ExperimentWorkflowID(expID), "", signal, payload); err != nil {
			t.Fatalf("forge %s: %v", signal, err)
		}
	}
	status := func(expID string) map[string]any {
		return dig(a.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": expID}), "workflow").(map[string]any)
	}

	// A plan submitted but never uploaded: "it landed, and it is valid".
	e1 := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "forged-plan"})["experiment_id"])
	sub := a.must("artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": e1, "role": "plan", "path": "plan.md"})
	plan := []byte("# Plan\n## Hypothesis\nh\n## Method\nm\n## Success criteria\ns\n## Risks\nr\n")
	sum := sha256.Sum256(plan)
	forge(e1, wf.ArtifactLandedSignal, wf.ArtifactRef{ArtifactID: str(sub["artifact_id"]), Role: "plan", Path: "plan.md",
		SHA256: hex.EncodeToString(sum[:]), Size: int64(len(plan)), Valid: true})

	// A design review the agent requested, "started and passed".
	e2 := toDesignReview(t, a, pid, "forged-review")
	rr, _ := requestReview(t, a, pid, e2, "design_reviewer")
	forge(e2, wf.ReviewStartedSignal, wf.ReviewStarted{Kind: "design", RequestID: rr})
	forge(e2, wf.ReviewVerdictSignal, wf.ReviewVerdict{Kind: "design", RequestID: rr, Verdict: "pass", Synopsis: "looks fine"})
	// And a whole review invented on the spot.
	forge(e2, wf.ReviewRequestedSignal, wf.ReviewRequested{Kind: "design", RequestID: "rr_invented", Role: "design_reviewer"})
	forge(e2, wf.ReviewVerdictSignal, wf.ReviewVerdict{Kind: "design", RequestID: "rr_invented", Verdict: "pass", Synopsis: "sure"})

	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		if w := status(e1); w["current_gate"] != "plan_required" {
			t.Fatalf("a forged artifact-landed opened the plan gate: %v", w)
		}
		if w := status(e2); w["current_gate"] != "design_review" || dig(w, "review_gate", "status") != "requested" {
			t.Fatalf("a forged verdict moved the design review: %v", w)
		}
	}
	a.refused("gate_blocked", "experiment.transition", map[string]any{"project_id": pid, "experiment_id": e2, "transition": "mark_ready_to_run"})
	a.refused("gate_blocked", "experiment.transition", map[string]any{"project_id": pid, "experiment_id": e1, "transition": "submit_design"})

	// Each forgery is logged once its record is found missing (a real id
	// waits out the grace in which an honest write could still commit).
	want := map[string]int{e1: 1, e2: 4}
	for _, id := range []string{e1, e2} {
		var rejected []any
		for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
			st := op.must("experiment.get_state", map[string]any{"project_id": pid, "experiment_id": id})
			rejected, _ = dig(st, "state", "rejected_signals").([]any)
			if len(rejected) >= want[id] {
				break
			}
		}
		if len(rejected) != want[id] {
			t.Fatalf("%s logged %d rejected signals, want %d: %v", id, len(rejected), want[id], rejected)
		}
	}

	// The honest path is untouched: the real upload and a real review open the gates.
	if code, body := uploadAs(t, sub, plan); code != 200 || body["valid"] != true {
		t.Fatalf("honest upload: %d %v", code, body)
	}
	if w := status(e1); w["current_gate"] != "design_review_required" {
		t.Fatalf("after the honest upload: %v", w)
	}
	runReview(t, a, pid, e2, "design_reviewer", verdict{verdict: "pass"})
	if w := status(e2); w["current_gate"] != "design_review_passed" {
		t.Fatalf("after an honest review: %v", w)
	}
	recordResearchHistory(t, s, wf.ExperimentWorkflowID(e2), "verified_forged_signals_then_pass")
}
