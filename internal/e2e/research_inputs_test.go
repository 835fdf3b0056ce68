package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"gorm.io/gorm"

	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// researchCounts counts the rows of the research tables a bad call must
// leave alone.
func researchCounts(t *testing.T, db *gorm.DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"research_projects", "research_experiments", "research_artifacts", "research_review_requests",
		"research_review_sessions", "research_claims", "research_candidates", "research_promotions"} {
		var n int64
		if err := db.Table(table).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func TestResearch_BadInputsAreRefusedAndChangeNothing(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "bad-inputs")
	a := connectResearch(t, s, mintProjectKey(t, s, "bad-inputs-agent", pid))
	exp := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "bad-inputs-exp"})["experiment_id"])
	db := researchDB(t, s)
	before := researchCounts(t, db)

	cases := []struct {
		tool, code, pointer string
		args                map[string]any
	}{
		{"project", "invalid_input", "/action", map[string]any{"action": "explode"}},
		{"project", "forbidden", "/action", map[string]any{"action": "create", "name": "agents-may-not"}},
		{"workflow.status_and_next", "invalid_input", "", map[string]any{}},
		{"workflow.status_and_next", "not_found", "/experiment_id", map[string]any{"project_id": pid, "experiment_id": "exp_nope"}},
		{"experiment.create", "invalid_input", "/name", map[string]any{"project_id": pid, "name": "No Spaces Allowed"}},
		{"experiment.create", "invalid_input", "/name", map[string]any{"project_id": pid, "name": "ab"}},
		{"experiment.create", "invalid_input", "", map[string]any{"project_id": pid, "name": "fine-name", "unknown": 1}},
		{"experiment.transition", "invalid_input", "/transition", map[string]any{"project_id": pid, "experiment_id": exp, "transition": "fly"}},
		{"experiment.transition", "gate_blocked", "/transition", map[string]any{"project_id": pid, "experiment_id": exp, "transition": "submit_design"}},
		{"experiment.transition", "gate_blocked", "/transition", map[string]any{"project_id": pid, "experiment_id": exp, "transition": "complete_experiment"}},
		{"artifact.submit", "invalid_input", "/role", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp, "role": "Plan!", "path": "p"}},
		{"artifact.submit", "not_found", "/target_id", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": "exp_nope", "role": "plan", "path": "p"}},
		{"artifact.find", "invalid_input", "/include_content", map[string]any{"project_id": pid, "include_content": "yes"}},
		{"review.request", "gate_blocked", "/target_id", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp, "role": "design_reviewer"}},
		{"review.request", "invalid_input", "/role", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp, "role": "critic"}},
		{"review.start", "forbidden", "/reviewer_capability", map[string]any{"review_request_id": "rr_nope", "reviewer_capability": "rp_x", "caller_session_id": "r"}},
		{"review.submit", "invalid_input", "/verdict", map[string]any{"review_session_id": "rs_x", "verdict": "maybe", "synopsis": "s"}},
		{"review.submit", "not_found", "/review_session_id", map[string]any{"review_session_id": "rs_nope", "verdict": "pass", "synopsis": "s"}},
		{"claim.create", "invalid_input", "/confidence", map[string]any{"project_id": pid, "statement": "s", "confidence": "sure"}},
		{"claim.create", "invalid_input", "/statement", map[string]any{"project_id": pid, "statement": ""}},
		{"claim.update", "not_found", "/claim_id", map[string]any{"project_id": pid, "claim_id": "cl_nope", "status": "supported"}},
		{"candidate.submit", "invalid_input", "/metrics", map[string]any{"project_id": pid, "name": "c", "source_kind": "artifact", "source_ref": "r",
			"metrics": map[string]any{}, "primary_metric": "m", "validation_summary": "v", "idempotency_key": "k"}},
		{"candidate.promote", "invalid_input", "/reason", map[string]any{"project_id": pid, "candidate_id": "c", "expected_champion_id": "", "reason": "short"}},
		{"candidate.promote", "not_found", "/candidate_id", map[string]any{"project_id": pid, "candidate_id": "cand_nope", "expected_champion_id": "",
			"reason": "a reason that is long enough to pass"}},
		{"candidate.stage", "invalid_input", "/stage_kind", map[string]any{"project_id": pid, "candidate_id": "c", "stage_kind": "vibes", "stage_ref": "r"}},
		{"project.list", "forbidden", "", map[string]any{}},
	}
	for _, c := range cases {
		r := a.refused(c.code, c.tool, c.args)
		if c.pointer != "" && !strings.HasPrefix(str(dig(r.Body, "error", "pointer")), c.pointer) {
			t.Errorf("%s %v: pointer %v, want %s", c.tool, c.args, dig(r.Body, "error", "pointer"), c.pointer)
		}
		if str(dig(r.Body, "error", "message")) == "" {
			t.Errorf("%s: error without a message: %s", c.tool, r.Raw)
		}
	}
	blocked := a.call("experiment.transition", map[string]any{"project_id": pid, "experiment_id": exp, "transition": "submit_design"})
	if g := dig(blocked.Body, "error", "details", "current_gate"); g != "plan_required" {
		t.Fatalf("gate_blocked details: %s", blocked.Raw)
	}

	// Uploads: an unknown token, an oversized gated artifact, a reused token.
	if r := s.Do(t, http.MethodPut, "/api/artifacts/u/up_unknown", "", "x"); r.Status != http.StatusNotFound {
		t.Fatalf("unknown upload token: %d", r.Status)
	}
	if after := researchCounts(t, db); !sameCounts(before, after) {
		t.Fatalf("bad calls changed rows: %v → %v", before, after)
	}
	sub := a.must("artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp, "role": "plan", "path": "plan.md"})
	if code, _ := uploadAs(t, sub, []byte(strings.Repeat("x", 20<<10))); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized plan: %d", code)
	}
	sub = a.must("artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp, "role": "plan", "path": "plan.md"})
	if code, body := uploadAs(t, sub, []byte("# Plan\n## Hypothesis\nTODO: x\n")); code != http.StatusOK || body["valid"] != false {
		t.Fatalf("unfilled plan: %d %v", code, body)
	}
	if code, _ := uploadAs(t, sub, []byte("again")); code != http.StatusConflict {
		t.Fatalf("reused upload token: %d", code)
	}
	w := dig(a.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": exp}), "workflow")
	if dig(w, "current_gate") != "plan_invalid" || dig(w, "next_action") != "fix_plan_artifact" {
		t.Fatalf("after an invalid plan: %v", w)
	}

	// Refused transitions never reached the workflow's history.
	it := s.Client(t).GetWorkflowHistory(context.Background(), "research-experiment/"+exp, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		// Uploads are accepted notices (NoticeUpdate); no transition Update may appear.
		accepted := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput().GetName()
		admitted := ev.GetWorkflowExecutionUpdateAdmittedEventAttributes().GetRequest().GetInput().GetName()
		if accepted == wf.TransitionUpdate || admitted == wf.TransitionUpdate {
			t.Fatalf("a refused transition reached history: %v", ev.GetEventType())
		}
	}
	a.must("experiment.transition", map[string]any{"project_id": pid, "experiment_id": exp, "transition": "abandon_experiment"})
	a.refused("gate_blocked", "artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": exp, "role": "plan", "path": "p"})
	recordResearchHistory(t, s, "research-experiment/"+exp, "invalid_plan_then_abandon")
}

func sameCounts(a, b map[string]int64) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}
