package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	flywf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// flyAgent is one agent key calling the FlyLab tools over REST, checking
// every envelope against the contract.
type flyAgent struct {
	t   *testing.T
	s   *Stack
	c   flyContract
	key string
}

func newFlyAgent(t *testing.T, s *Stack, name string) flyAgent {
	return flyAgent{t: t, s: s, c: loadFlyContract(t), key: mintAgentKey(t, s, name, false)}
}

func (a flyAgent) call(tool string, args map[string]any) map[string]any {
	a.t.Helper()
	return flyTool(a.t, a.s, a.c, a.key, tool, args)
}

// inspect reads a page session (args may open or resume one) and returns
// the envelope.
func (a flyAgent) inspect(args map[string]any) map[string]any {
	a.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	env := a.call("inspect_flylab_state", args)
	mustOK(a.t, env)
	return env
}

func agentContext(env map[string]any) map[string]any {
	return env["data"].(map[string]any)["agent_context"].(map[string]any)
}

// designMDN runs find and draft in the current session and returns the
// session id and hypothesis id.
func (a flyAgent) draftMDN() (string, string) {
	a.t.Helper()
	insp := a.inspect(nil)
	sid := insp["page_session_id"].(string)
	found := a.call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": insp["state_revision"],
		"query": "moonwalker descending neuron backward walking", "behavior": "backward_walking"})
	mustOK(a.t, found)
	drafted := a.call("draft_fly_hypothesis", map[string]any{"page_session_id": sid, "expected_state_revision": found["state_revision"],
		"circuit_id": "circuit_mdn_backward", "claim": "Activating MDN drives backward walking in the reduced-order model.",
		"predicted_behavior": "backward_walking", "perturbation": "activate", "primary_outcome": "backward_distance_mm",
		"expected_direction": "increase", "controls": []string{"condition_baseline", "condition_sham"},
		"evidence_ids": []string{"E-MDN-ACTIVATION-001"}, "evidence_limitations": []string{"Reduced-order model; not a wet-lab result."},
		"falsification_criterion": "No increase over sham."})
	return sid, mustOK(a.t, drafted)["hypothesis"].(map[string]any)["id"].(string)
}

// design designs the MDN trial with seed at the session's current revision
// and returns the experiment id and protocol hash.
func (a flyAgent) design(sid, hyp string, seed int) (string, string) {
	a.t.Helper()
	cur := a.inspect(map[string]any{"page_session_id": sid})
	exp := mustOK(a.t, a.call("design_stimulation_trial", designArgs(sid, cur["state_revision"], hyp, seed)))["experiment"].(map[string]any)
	return exp["id"].(string), exp["protocolHash"].(string)
}

// approve approves over the operator endpoint and returns the status.
func (a flyAgent) approve(expID, hash string) Response {
	a.t.Helper()
	return a.s.Do(a.t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", a.s.OperatorToken,
		map[string]any{"protocol_hash": hash})
}

// runAndAnalyze runs the approved experiment under opID and analyzes the
// batch, returning the batch and analysis ids.
func (a flyAgent) runAndAnalyze(sid, expID, hash, opID string) (string, string) {
	a.t.Helper()
	cur := a.inspect(map[string]any{"page_session_id": sid})
	ran := a.call("run_fly_simulation", map[string]any{"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"experiment_id": expID, "approved_protocol_hash": hash, "operation_id": opID})
	batch := mustOK(a.t, ran)["id"].(string)
	if ran["idempotent_replay"] != false {
		a.t.Fatalf("run %s in %s was answered as a replay", opID, sid)
	}
	analyzed := a.call("analyze_fly_behavior", map[string]any{"page_session_id": sid, "expected_state_revision": ran["state_revision"],
		"batch_id": batch, "metrics": mdnPanel})
	return batch, mustOK(a.t, analyzed)["analysis"].(map[string]any)["id"].(string)
}

func (a flyAgent) pending() []string {
	a.t.Helper()
	var list struct {
		Experiments []struct {
			ID string `json:"experiment_id"`
		} `json:"experiments"`
	}
	a.s.Do(a.t, http.MethodGet, "/operator/v1/flylab/experiments?status=awaiting_approval", a.s.OperatorToken, nil).JSON(a.t, &list)
	var ids []string
	for _, e := range list.Experiments {
		ids = append(ids, e.ID)
	}
	return ids
}

// TestFlyLab_ReturnsAndReplicationsReachTheOperatorAndTrialsCompare runs
// design A (approved, run, analyzed), designs B, returns to A, and checks
// the return is a new experiment the operator sees and can approve (it
// used to land on A's id, already "ran": 409 already_decided and hidden
// from the pending list); runs it and compares the original's analysis
// with the follow-up's; then replicates A identically once more, again a
// new approvable experiment.
func TestFlyLab_ReturnsAndReplicationsReachTheOperatorAndTrialsCompare(t *testing.T) {
	s := Shared(t)
	a := newFlyAgent(t, s, "flylab-replication")
	sid, hyp := a.draftMDN()
	expA, hashA := a.design(sid, hyp, 7)
	if r := a.approve(expA, hashA); r.Status != http.StatusOK {
		t.Fatalf("approve A: %d %s", r.Status, r.Body)
	}
	_, original := a.runAndAnalyze(sid, expA, hashA, "run-a")

	expB, _ := a.design(sid, hyp, 8)
	back, backHash := a.design(sid, hyp, 7)
	if back == expA || back == expB {
		t.Fatalf("A→B→A landed on an earlier id: A %s B %s back %s", expA, expB, back)
	}
	if p := a.pending(); !slices.Contains(p, back) || slices.Contains(p, expB) {
		t.Fatalf("pending %v, want the return %s and not the superseded %s", p, back, expB)
	}
	gate := agentContext(a.inspect(nil))["human_gate"].(map[string]any)
	if gate["status"] != "required" || gate["experiment_id"] != back || gate["expires_at"] == nil {
		t.Fatalf("gate after the return: %v", gate)
	}
	if r := a.approve(back, backHash); r.Status != http.StatusOK {
		t.Fatalf("approve the return to A: %d %s", r.Status, r.Body)
	}
	_, followUp := a.runAndAnalyze(sid, back, backHash, "run-back")

	cur := a.inspect(nil)
	comparable := agentContext(cur)["artifacts"].(map[string]any)["comparable_analysis_ids"].([]any)
	if len(comparable) != 2 {
		t.Fatalf("comparable analyses %v, want the original and the follow-up", comparable)
	}
	compared := a.call("compare_fly_trials", map[string]any{"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"analysis_ids": []string{original, followUp}, "objective_metric": "backward_distance_mm", "objective": "maximize"})
	ids := mustOK(t, compared)["comparison"].(map[string]any)["analysisIds"]
	if got, _ := ids.([]any); len(got) != 2 {
		t.Fatalf("comparison ranks %v, want both trials", ids)
	}

	again, againHash := a.design(sid, hyp, 7)
	if again == expA || again == back {
		t.Fatalf("an identical replication reused %s", again)
	}
	if r := a.approve(again, againHash); r.Status != http.StatusOK {
		t.Fatalf("approve the replication: %d %s", r.Status, r.Body)
	}
}

// TestFlyLab_PageSessionsScopeIDsAndOperationIDs runs the same design and
// the same operation id in two page sessions of one key: each session
// gets its own experiment and batch, the second run is not a replay of the
// first, and the first session stays readable after the second opened.
func TestFlyLab_PageSessionsScopeIDsAndOperationIDs(t *testing.T) {
	s := Shared(t)
	a := newFlyAgent(t, s, "flylab-page-sessions")
	first, hyp1 := a.draftMDN()
	exp1, hash1 := a.design(first, hyp1, 7)
	if r := a.approve(exp1, hash1); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	batch1, _ := a.runAndAnalyze(first, exp1, hash1, "run-1")

	opened := a.inspect(map[string]any{"new_page_session": true, "operation_id": "open-second"})
	second := opened["page_session_id"].(string)
	if second == first || opened["state_revision"].(float64) != 1 || agentContext(opened)["next_action"].(map[string]any)["name"] != "find_fly_circuits" {
		t.Fatalf("new page session %v: revision %v next %v", second, opened["state_revision"], agentContext(opened)["next_action"])
	}
	sid2, hyp2 := a.draftMDN()
	if sid2 != second {
		t.Fatalf("the current session is %s, want the new %s", sid2, second)
	}
	exp2, hash2 := a.design(second, hyp2, 7)
	if exp2 == exp1 {
		t.Fatalf("the same design in two page sessions shares experiment %s", exp1)
	}
	if r := a.approve(exp2, hash2); r.Status != http.StatusOK {
		t.Fatalf("approve in the second session: %d %s", r.Status, r.Body)
	}
	batch2, _ := a.runAndAnalyze(second, exp2, hash2, "run-1")
	if batch2 == batch1 {
		t.Fatalf("operation run-1 of the second session answered the first's batch %s", batch1)
	}
	old := a.inspect(map[string]any{"page_session_id": first})
	if old["page_session_id"] != first || agentContext(old)["artifacts"].(map[string]any)["batch_id"] != batch1 {
		t.Fatalf("the first session is not readable as it was: %v", agentContext(old)["artifacts"])
	}
}

// TestFlyLab_ForgedApprovalSignalThroughTemporalLeavesTheGateClosed plays
// an attacker who reaches the Temporal frontend (a sandbox Pod, the
// Temporal UI) and knows every value an agent knows: it signals the
// experiment's approval with the exact protocol hash and the operator's
// name, with no decision record and with a made-up one, and signals the
// session that the experiment was approved. The gate stays closed (the
// run is refused, inspect shows the approval required, the operator's
// list still shows it pending), every attempt is recorded on the
// experiment, and the operator's own approval then opens it.
func TestFlyLab_ForgedApprovalSignalThroughTemporalLeavesTheGateClosed(t *testing.T) {
	s := Shared(t)
	a := newFlyAgent(t, s, "flylab-forged-gate")
	sid, hyp := a.draftMDN()
	expID, hash := a.design(sid, hyp, 7)
	tc := s.Client(t)
	ctx := context.Background()
	forged := []flywf.Approve{{ProtocolHash: hash, Operator: "operator"},
		{ProtocolHash: hash, Operator: "operator", DecisionID: "decision_" + strings.Repeat("0", 32)}}
	for _, f := range forged {
		if err := tc.SignalWorkflow(ctx, flywf.ExperimentWorkflowID(expID), "", flywf.ApproveSignal, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := tc.SignalWorkflow(ctx, flywf.SessionWorkflowID(sid), "", flywf.DecisionSignal, flywf.Decision{ExperimentID: expID,
		Status: flywf.ExperimentApproved, ProtocolHash: hash, DecidedAt: time.Now().UTC().Format(time.RFC3339Nano)}); err != nil {
		t.Fatal(err)
	}
	var view struct {
		Status  string           `json:"status"`
		Refused []map[string]any `json:"refused_gate_signals"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(view.Refused) < 3 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		s.Do(t, http.MethodGet, "/operator/v1/flylab/experiments/"+expID, s.OperatorToken, nil).JSON(t, &view)
	}
	if len(view.Refused) != 3 || view.Status != "awaiting_approval" {
		t.Fatalf("after forged signals: status %s, refused %v (want 3 recorded)", view.Status, view.Refused)
	}
	cur := a.inspect(nil)
	if gate := agentContext(cur)["human_gate"].(map[string]any); gate["status"] != "required" {
		t.Fatalf("the forged signals opened the gate: %v", gate)
	}
	mustCode(t, a.call("run_fly_simulation", map[string]any{"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"experiment_id": expID, "approved_protocol_hash": hash, "operation_id": "run-forged"}), "APPROVAL_REQUIRED")
	if !slices.Contains(a.pending(), expID) {
		t.Fatalf("the experiment left the pending list")
	}
	if r := a.approve(expID, hash); r.Status != http.StatusOK {
		t.Fatalf("the operator's approval: %d %s", r.Status, r.Body)
	}
	if gate := agentContext(a.inspect(nil))["human_gate"].(map[string]any); gate["status"] != "satisfied" {
		t.Fatalf("the operator's approval did not open the gate: %v", gate)
	}
	recordHistory(t, s, flywf.ExperimentWorkflowID(expID), "experiment_forged_signals_refused")
	recordHistory(t, s, flywf.SessionWorkflowID(sid), "session_forged_decision_refused")
}
