package e2e

import (
	"net/http"
	"testing"
)

// The FlyLab tool flow the console test needs, written against the
// contract (flylab-webmcp-contracts.v3): inspect → find → draft → design.

// consoleMintAgentKey mints an agent key of its own, so the test's FlyLab
// page session (one per key) is not shared with other tests.
func consoleMintAgentKey(t *testing.T, s *Stack) string {
	t.Helper()
	return mintAgentKey(t, s, "console-e2e", false)
}

// consoleTool calls a FlyLab tool and returns its successful envelope.
func consoleTool(t *testing.T, s *Stack, key, tool string, args map[string]any) map[string]any {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/v1/flylab/tools/"+tool, key, args)
	if r.Status != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s", tool, r.Status, truncate(r.Body))
	}
	var env map[string]any
	r.JSON(t, &env)
	if env["ok"] != true {
		t.Fatalf("%s failed: %v", tool, env["error"])
	}
	return env
}

func consoleData(env map[string]any) map[string]any {
	d, _ := env["data"].(map[string]any)
	return d
}

// consoleDesignExperiment runs the tools up to a designed trial waiting for
// the operator and returns the experiment id and its protocol hash.
func consoleDesignExperiment(t *testing.T, s *Stack, key string) (string, string) {
	t.Helper()
	insp := consoleTool(t, s, key, "inspect_flylab_state", map[string]any{})
	sid, _ := consoleData(insp)["page_session_id"].(string)
	found := consoleTool(t, s, key, "find_fly_circuits", map[string]any{"page_session_id": sid,
		"expected_state_revision": insp["state_revision"], "query": "moonwalker descending neuron backward walking",
		"behavior": "backward_walking"})
	circuit, _ := consoleData(found)["selected_circuit_id"].(string)
	evidence := []any{"E-MDN-ACTIVATION-001"}
	if causal, ok := consoleData(found)["causal_evidence_ids_by_perturbation"].(map[string]any); ok {
		if ids, ok := causal["activate"].([]any); ok && len(ids) > 0 {
			evidence = ids
		}
	}
	drafted := consoleTool(t, s, key, "draft_fly_hypothesis", map[string]any{"page_session_id": sid,
		"expected_state_revision": found["state_revision"], "circuit_id": circuit,
		"claim": "Activating MDN drives backward walking in the reduced-order model.", "predicted_behavior": "backward_walking",
		"perturbation": "activate", "primary_outcome": "backward_distance_mm", "expected_direction": "increase",
		"controls": []string{"condition_baseline", "condition_sham"}, "evidence_ids": evidence,
		"evidence_limitations": []string{"Reduced-order model; not a wet-lab result."}, "falsification_criterion": "No increase over sham."})
	hyp, _ := consoleData(drafted)["hypothesis"].(map[string]any)
	designed := consoleTool(t, s, key, "design_stimulation_trial", map[string]any{"page_session_id": sid,
		"expected_state_revision": drafted["state_revision"], "hypothesis_id": hyp["id"], "target_circuit_id": circuit,
		"perturbation": "activate", "laterality": "bilateral", "activation_level": 0.8, "onset_ms": 500, "duration_ms": 1000,
		"trial_duration_ms": 3000, "replicates": 2, "include_baseline": true, "include_sham_control": true, "seed": 11})
	exp, _ := consoleData(designed)["experiment"].(map[string]any)
	id, _ := exp["id"].(string)
	hash, _ := exp["protocolHash"].(string)
	if id == "" || len(hash) != 71 {
		t.Fatalf("design_stimulation_trial returned experiment %q hash %q", id, hash)
	}
	return id, hash
}

// consoleHumanGate is the operator gate as the agent's next
// inspect_flylab_state reports it.
func consoleHumanGate(t *testing.T, s *Stack, key string) map[string]any {
	t.Helper()
	ctx, _ := consoleData(consoleTool(t, s, key, "inspect_flylab_state", map[string]any{}))["agent_context"].(map[string]any)
	gate, _ := ctx["human_gate"].(map[string]any)
	if gate == nil {
		t.Fatal("inspect_flylab_state has no agent_context.human_gate")
	}
	return gate
}

// consoleFollowNextActions runs the session forward by calling exactly the
// next_action inspect_flylab_state names (run → analyze → compare → save),
// until the lineage is saved; it returns the evidence bundle id.
func consoleFollowNextActions(t *testing.T, s *Stack, key string) string {
	t.Helper()
	for range 8 {
		insp := consoleTool(t, s, key, "inspect_flylab_state", map[string]any{})
		ac, _ := consoleData(insp)["agent_context"].(map[string]any)
		next, _ := ac["next_action"].(map[string]any)
		if next["kind"] == "complete" {
			refs, _ := next["input_refs"].(map[string]any)
			id, _ := refs["evidence_bundle_id"].(string)
			return id
		}
		if next["kind"] != "tool" {
			t.Fatalf("next action is %v, want a tool call", next)
		}
		tool, _ := next["name"].(string)
		args, _ := next["arguments"].(map[string]any)
		if _, ok := args["operation_id"]; ok {
			args["operation_id"] = "console-e2e-" + tool
		}
		consoleTool(t, s, key, tool, args)
	}
	t.Fatal("the session did not reach a saved evidence bundle in 8 steps")
	return ""
}

// consoleApproveOverREST approves through the operator endpoint.
func consoleApproveOverREST(t *testing.T, s *Stack, expID, hash string) {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", s.OperatorToken, map[string]any{"protocol_hash": hash})
	if r.Status != http.StatusOK {
		t.Fatalf("approve over REST: %d %s", r.Status, truncate(r.Body))
	}
}
