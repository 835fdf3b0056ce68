package e2e

import (
	"testing"
)

// TestResearch_InternalToolsServeOperatorsAndRefuseAgentKeys calls every
// hidden internal tool of this families with the operator token and
// checks what it returns, then checks an agent key gets
// tool_visibility_forbidden from each.
func TestResearch_InternalToolsServeOperatorsAndRefuseAgentKeys(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	agent := connectResearch(t, s, s.APIKey)
	pid := researchProject(t, op, "internal-tools")
	exp := toDesignReview(t, op, pid, "internal-exp")
	op.must("claim.create", map[string]any{"project_id": pid, "statement": "internal tools list claims"})
	requestReview(t, op, pid, exp, "design_reviewer")

	listed := op.must("project.list", map[string]any{})
	found := false
	for _, p := range listed["projects"].([]any) {
		if dig(p, "id") == pid {
			found = true
		}
	}
	if !found {
		t.Fatalf("project.list lacks %s: %v", pid, listed)
	}
	if got := dig(op.must("project.get", map[string]any{"project_id": pid}), "project", "id"); got != pid {
		t.Fatalf("project.get: %v", got)
	}
	op.must("project.update", map[string]any{"project_id": pid, "description": "updated by the operator"})
	if got := dig(op.must("project.get", map[string]any{"project_id": pid}), "project", "description"); got != "updated by the operator" {
		t.Fatalf("project.update did not stick: %v", got)
	}
	exps := op.must("experiment.list", map[string]any{"project_id": pid})["experiments"].([]any)
	if len(exps) != 1 || dig(exps[0], "status") != "design_review" {
		t.Fatalf("experiment.list: %v", exps)
	}
	if st := op.must("experiment.get_state", map[string]any{"project_id": pid, "experiment_id": exp}); dig(st, "state", "status") != "design_review" {
		t.Fatalf("experiment.get_state: %v", st)
	}
	if cls := op.must("claim.list", map[string]any{"project_id": pid})["claims"].([]any); len(cls) != 1 {
		t.Fatalf("claim.list: %v", cls)
	}
	reqs := op.must("review.status", map[string]any{"project_id": pid})["review_requests"].([]any)
	if len(reqs) != 1 || dig(reqs[0], "target_id") != exp {
		t.Fatalf("review.status: %v", reqs)
	}

	for name, args := range map[string]map[string]any{
		"project.list":         {},
		"project.get":          {"project_id": pid},
		"project.update":       {"project_id": pid, "description": "agent was here"},
		"experiment.list":      {"project_id": pid},
		"experiment.get_state": {"project_id": pid, "experiment_id": exp},
		"claim.list":           {"project_id": pid},
		"review.status":        {"project_id": pid},
	} {
		r := agent.refused("forbidden", name, args)
		if reason := dig(r.Body, "error", "reason"); reason != "tool_visibility_forbidden" {
			t.Errorf("%s: reason %v, want tool_visibility_forbidden", name, reason)
		}
	}
	if got := dig(op.must("project.get", map[string]any{"project_id": pid}), "project", "description"); got != "updated by the operator" {
		t.Fatalf("a refused agent call changed the project: %v", got)
	}
}
