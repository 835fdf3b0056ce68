package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// verdict is what a reviewer answers: pass, or a rejection with return_to.
type verdict struct{ verdict, returnTo string }

// driveExperiment plays an agent: it asks workflow.status_and_next what to
// do and does only that (fill and upload the named artifact's template,
// run a review with a separate reviewer session, call the transition the
// next_action names) until the experiment is terminal. reviews answers
// the n-th review of a kind. It returns the next_actions seen, in order.
func driveExperiment(t *testing.T, agent *researchAgent, projectID, expID string, reviews func(kind string, n int) verdict) []string {
	t.Helper()
	var seen []string
	count := map[string]int{}
	sawRevision := false
	for step := 0; step < 60; step++ {
		st := agent.must("workflow.status_and_next", map[string]any{"project_id": projectID, "experiment_id": expID})
		w, _ := st["workflow"].(map[string]any)
		next := str(w["next_action"])
		seen = append(seen, next)
		if w["revision_context"] != nil {
			sawRevision = true
		}
		if guide, ok := w["artifact_guidance"].(map[string]any); ok {
			filled := strings.ReplaceAll(str(guide["template"]), "TODO:", "Filled in by the agent:")
			sub := agent.must("artifact.submit", map[string]any{"project_id": projectID, "target_type": "experiment",
				"target_id": expID, "role": guide["role"], "path": guide["path"]})
			if !strings.HasPrefix(str(sub["run"]), "curl ") {
				t.Fatalf("artifact.submit run = %q", sub["run"])
			}
			code, body := uploadAs(t, sub, []byte(filled))
			if code != http.StatusOK || body["valid"] != true || len(str(body["sha256"])) != 64 {
				t.Fatalf("upload of %s: %d %v", guide["role"], code, body)
			}
			continue
		}
		if gate, ok := w["review_gate"].(map[string]any); ok {
			if gate["read_only"] != true || str(gate["status"]) != "none" {
				t.Fatalf("review gate %v", gate)
			}
			kind := strings.TrimSuffix(str(gate["role"]), "_reviewer")
			count[kind]++
			v := reviews(kind, count[kind])
			runReview(t, agent, projectID, expID, str(gate["role"]), v)
			continue
		}
		switch next {
		case "none":
			if str(w["status"]) == "" {
				t.Fatalf("terminal envelope without status: %v", w)
			}
			if !sawRevision && (count["design"] > 1 || count["experiment"] > 1) {
				t.Fatal("a rejection never showed revision_context")
			}
			return seen
		case "submit_design_for_review", "mark_ready_to_run", "start_running", "submit_results_for_review", "complete_experiment":
			ev := map[string]any{}
			if next == "complete_experiment" {
				ev["conclusion"] = "the hypothesis held"
			}
			res := agent.must("experiment.transition", map[string]any{"project_id": projectID, "experiment_id": expID,
				"transition": next, "evidence": ev})
			if res["from"] == res["status"] {
				t.Fatalf("%s moved nothing: %v", next, res)
			}
		default:
			t.Fatalf("step %d: an agent cannot act on next_action %q (%v)", step, next, w)
		}
	}
	t.Fatalf("experiment not finished after 60 steps: %v", seen)
	return nil
}

// runReview requests a review as the producer, then starts and answers it
// as a reviewer in another session.
func runReview(t *testing.T, agent *researchAgent, projectID, expID, role string, v verdict) {
	t.Helper()
	req := agent.must("review.request", map[string]any{"project_id": projectID, "target_type": "experiment", "target_id": expID, "role": role})
	capability := str(req["reviewer_capability"])
	if !strings.HasPrefix(capability, "rp_") || dig(req, "reviewer_handoff", "start_tool") != "review.start" {
		t.Fatalf("review.request: %v", req)
	}
	// The producer's own key may not review, whatever session it names.
	agent.refused("forbidden", "review.start", map[string]any{"review_request_id": req["review_request_id"],
		"reviewer_capability": capability, "caller_session_id": "reviewer-" + role})
	reviewer := agent.reviewerAgent()
	started := reviewer.must("review.start", map[string]any{"review_request_id": req["review_request_id"],
		"reviewer_capability": capability, "caller_session_id": "reviewer-" + role})
	args := map[string]any{"review_session_id": started["review_session_id"], "verdict": v.verdict, "synopsis": "reviewed " + role}
	if v.returnTo != "" {
		args["return_to"] = v.returnTo
	}
	reviewer.must("review.submit", args)
	// The capability is single-use.
	reviewer.refused("conflict", "review.start", map[string]any{"review_request_id": req["review_request_id"],
		"reviewer_capability": capability, "caller_session_id": "reviewer-again"})
}

func TestResearch_AgentDrivesExperimentToCompleteThroughMCP(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	proj := op.must("project", map[string]any{"action": "create", "name": uniq("e2e-agent")})
	projectID := str(dig(proj, "project", "id"))
	if projectID == "" || proj["created"] != true {
		t.Fatalf("project create: %v", proj)
	}
	agent := connectResearch(t, s, s.APIKey)
	agent.refused("forbidden", "project", map[string]any{"action": "create", "name": "agents-cannot"})

	tools, err := agent.sess.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	public, hidden := 0, 0
	for _, tl := range tools.Tools {
		if tl.Meta["hidden"] == true {
			hidden++
		} else {
			public++
		}
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("%s lacks a description or schema", tl.Name)
		}
	}
	if public != 41 || hidden != 11 {
		t.Fatalf("tools/list: %d public + %d hidden, want 41 + 11", public, hidden)
	}

	created := agent.must("experiment.create", map[string]any{"project_id": projectID, "name": "agent-run-1", "intent": "does it work"})
	expID := str(created["experiment_id"])
	if created["folder"] != "experiments/agent-run-1/" {
		t.Fatalf("experiment.create: %v", created)
	}
	// The reviewers ask for changes once each: design back to planned, the
	// experiment back to running (same attempt); then they pass.
	seen := driveExperiment(t, agent, projectID, expID, func(kind string, n int) verdict {
		switch {
		case kind == "design" && n == 1:
			return verdict{"needs_changes", "planned"}
		case kind == "experiment" && n == 1:
			return verdict{"needs_changes", "running"}
		}
		return verdict{"pass", ""}
	})
	for _, want := range []string{"write_and_submit_plan", "submit_design_for_review", "launch_design_reviewer", "mark_ready_to_run",
		"start_running", "run_experiment_and_retain_results", "write_and_submit_results_report", "write_and_submit_logic_graph",
		"submit_results_for_review", "launch_experiment_reviewer", "complete_experiment", "none"} {
		if !containsStr(seen, want) {
			t.Errorf("next_action %s never seen: %v", want, seen)
		}
	}
	st := agent.must("workflow.status_and_next", map[string]any{"project_id": projectID, "experiment_id": expID})
	if dig(st, "workflow", "status") != "complete" || dig(st, "workflow", "attempt_index") != 0.0 {
		t.Fatalf("final: %v", st["workflow"])
	}
	ex := agent.must("experiment.exhibit", map[string]any{"project_id": projectID, "experiment_id": expID})
	files, _ := ex["files"].([]any)
	if len(files) != 1 || dig(files[0], "metrics", "primary_metric") != 0.0 {
		t.Fatalf("exhibit: %v", ex)
	}
	recordResearchHistory(t, s, "research-experiment/"+expID, "agent_complete_with_rejections")

	// The list mirrors the workflow once its activity ran.
	waitFor(t, 10e9, func() bool {
		l := op.must("experiment.list", map[string]any{"project_id": projectID})
		exps, _ := l["experiments"].([]any)
		return len(exps) == 1 && dig(exps[0], "status") == "complete"
	})
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
