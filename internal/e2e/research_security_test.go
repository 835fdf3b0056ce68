package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// researchProject creates a project with the operator credential.
func researchProject(t *testing.T, op *researchAgent, name string) string {
	t.Helper()
	id := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq(name)}), "project", "id"))
	if id == "" {
		t.Fatalf("project %s has no id", name)
	}
	return id
}

// mintProjectKey mints an agent key limited to projects.
func mintProjectKey(t *testing.T, s *Stack, name string, projects ...string) string {
	t.Helper()
	m, err := platform.Mint(context.Background(), researchDB(t, s), platform.MintRequest{Role: platform.RoleAgent, Name: name, Projects: projects})
	if err != nil {
		t.Fatal(err)
	}
	return m.Plaintext
}

// toDesignReview creates an experiment and brings it to design_review.
func toDesignReview(t *testing.T, a *researchAgent, projectID, name string) string {
	t.Helper()
	id := str(a.must("experiment.create", map[string]any{"project_id": projectID, "name": name})["experiment_id"])
	sub := a.must("artifact.submit", map[string]any{"project_id": projectID, "target_type": "experiment", "target_id": id, "role": "plan", "path": "plan.md"})
	plan := "# Plan\n## Hypothesis\nh\n## Method\nm\n## Success criteria\ns\n## Risks\nr\n"
	if code, body := uploadAs(t, sub, []byte(plan)); code != http.StatusOK || body["valid"] != true {
		t.Fatalf("plan upload: %d %v", code, body)
	}
	a.must("experiment.transition", map[string]any{"project_id": projectID, "experiment_id": id, "transition": "submit_design"})
	return id
}

func requestReview(t *testing.T, a *researchAgent, projectID, expID, role string) (requestID, capability string) {
	t.Helper()
	r := a.must("review.request", map[string]any{"project_id": projectID, "target_type": "experiment", "target_id": expID, "role": role})
	return str(r["review_request_id"]), str(r["reviewer_capability"])
}

func TestResearch_KeysSeeOnlyTheirProjects(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pa, pb := researchProject(t, op, "sec-keys-a"), researchProject(t, op, "sec-keys-b")
	keyA := connectResearch(t, s, mintProjectKey(t, s, "key-a", pa))
	keyB := connectResearch(t, s, mintProjectKey(t, s, "key-b", pb))
	expB := str(keyB.must("experiment.create", map[string]any{"project_id": pb, "name": "b-secret"})["experiment_id"])

	for name, args := range map[string]map[string]any{
		"workflow.status_and_next": {"project_id": pb},
		"project":                  {"action": "overview", "project_id": pb},
		"experiment.create":        {"project_id": pb, "name": "a-intrudes"},
		"experiment.exhibit":       {"project_id": pb, "experiment_id": expB},
		"artifact.find":            {"project_id": pb, "include_content": true},
		"candidate.list":           {"project_id": pb},
	} {
		keyA.refused("forbidden", name, args)
	}
	// Project A's id with B's experiment: not found, not B's data.
	keyA.refused("not_found", "workflow.status_and_next", map[string]any{"project_id": pa, "experiment_id": expB})
	list := keyA.must("project", map[string]any{"action": "list"})
	if ps, _ := list["projects"].([]any); len(ps) != 1 || dig(ps[0], "id") != pa {
		t.Fatalf("key A lists %v", list)
	}
	// The REST mirror applies the same rule.
	if r := s.Do(t, http.MethodPost, "/v1/research/tools/workflow.status_and_next", mintProjectKey(t, s, "key-a2", pa),
		map[string]any{"project_id": pb}); r.Status != http.StatusForbidden {
		t.Fatalf("REST cross-project read: %d %s", r.Status, r.Body)
	}
}

func TestResearch_ReviewCapabilitiesAreScopedSingleUseAndExpire(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "sec-capabilities")
	a := connectResearch(t, s, mintProjectKey(t, s, "cap-agent", pid))
	e1, e2 := toDesignReview(t, a, pid, "cap-one"), toDesignReview(t, a, pid, "cap-two")
	rr1, cap1 := requestReview(t, a, pid, e1, "design_reviewer")
	rr2, cap2 := requestReview(t, a, pid, e2, "design_reviewer")

	// A capability for one request cannot start another.
	a.refused("forbidden", "review.start", map[string]any{"review_request_id": rr2, "reviewer_capability": cap1, "caller_session_id": "rev"})
	// The producer's own session cannot review.
	a.refused("forbidden", "review.start", map[string]any{"review_request_id": rr1, "reviewer_capability": cap1, "caller_session_id": "main"})

	// An expired capability is refused and changes nothing.
	db := researchDB(t, s)
	if err := db.Model(&models.ReviewRequest{}).Where("id = ?", rr2).Update("expires_at", time.Now().Add(-time.Minute)).Error; err != nil {
		t.Fatal(err)
	}
	a.refused("expired", "review.start", map[string]any{"review_request_id": rr2, "reviewer_capability": cap2, "caller_session_id": "rev"})
	var r2 models.ReviewRequest
	if err := db.Where("id = ?", rr2).Take(&r2).Error; err != nil || r2.Status != models.ReviewRequested {
		t.Fatalf("expired request now %q (%v)", r2.Status, err)
	}
	if g := dig(a.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": e2}), "workflow", "review_gate", "status"); g != "requested" {
		t.Fatalf("review gate after refused start: %v", g)
	}

	// A new request supersedes the open one: its capability stops working.
	rr1b, cap1b := requestReview(t, a, pid, e1, "design_reviewer")
	a.refused("conflict", "review.start", map[string]any{"review_request_id": rr1, "reviewer_capability": cap1, "caller_session_id": "rev"})
	// The producer's key cannot review its own target under another
	// session name: the credential, not the session id, decides.
	a.refused("forbidden", "review.start", map[string]any{"review_request_id": rr1b, "reviewer_capability": cap1b, "caller_session_id": "rev"})
	rv := a.reviewerAgent()
	started := rv.must("review.start", map[string]any{"review_request_id": rr1b, "reviewer_capability": cap1b, "caller_session_id": "rev"})
	// Only the credential that started the session answers it.
	a.refused("forbidden", "review.submit", map[string]any{"review_session_id": started["review_session_id"], "verdict": "pass", "synopsis": "mine"})
	rv.must("review.submit", map[string]any{"review_session_id": started["review_session_id"], "verdict": "pass", "synopsis": "fine",
		"findings": []any{map[string]any{"severity": "minor", "note": "typo in the method"}}, "evidence": map[string]any{"read": []any{"plan.md"}}})
	rv.refused("conflict", "review.submit", map[string]any{"review_session_id": started["review_session_id"], "verdict": "pass", "synopsis": "again"})
	var sess models.ReviewSession
	if err := db.Where("id = ?", started["review_session_id"]).Take(&sess).Error; err != nil ||
		!strings.Contains(sess.FindingsJSON, "typo in the method") || !strings.Contains(sess.EvidenceJSON, "plan.md") {
		t.Fatalf("review.submit dropped findings or evidence: %+v (%v)", sess, err)
	}
	recordResearchHistory(t, s, "research-experiment/"+e1, "superseded_review_then_pass")
}

func TestResearch_HumanReviewerAnswersFromTheOperatorConsole(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "sec-human")
	key := mintProjectKey(t, s, "human-producer", pid)
	a := connectResearch(t, s, key)
	e := toDesignReview(t, a, pid, "human-one")
	rr, capability := requestReview(t, a, pid, e, "human")
	// A human review goes only to operators: neither the producer nor
	// another agent key opens it with the capability.
	for _, agent := range []*researchAgent{a, a.reviewerAgent()} {
		agent.refused("forbidden", "review.start", map[string]any{"review_request_id": rr, "reviewer_capability": capability, "caller_session_id": "human-impostor"})
	}

	pending := s.Do(t, http.MethodGet, "/operator/v1/research/reviews", s.OperatorToken, nil)
	var list struct {
		Requests []map[string]any `json:"review_requests"`
	}
	pending.JSON(t, &list)
	found := false
	for _, r := range list.Requests {
		found = found || r["review_request_id"] == rr
	}
	if !found {
		t.Fatalf("pending human reviews lack %s: %s", rr, pending.Body)
	}
	path := "/operator/v1/research/reviews/" + rr + "/verdict"
	if r := s.Do(t, http.MethodPost, path, key, map[string]any{"verdict": "pass", "synopsis": "x"}); r.Status != http.StatusForbidden && r.Status != http.StatusUnauthorized {
		t.Fatalf("agent key answered a human review: %d", r.Status)
	}
	if r := s.Do(t, http.MethodPost, path, s.OperatorToken, map[string]any{"verdict": "needs_changes", "return_to": "running", "synopsis": "x"}); r.Status != http.StatusBadRequest {
		t.Fatalf("bad return_to: %d %s", r.Status, r.Body)
	}
	if g := dig(a.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": e}), "workflow", "review_gate", "status"); g != "requested" {
		t.Fatalf("a refused verdict changed the review gate: %v", g)
	}
	r := s.Do(t, http.MethodPost, path, s.OperatorToken, map[string]any{"verdict": "needs_changes", "synopsis": "tighten the method"})
	if r.Status != http.StatusOK {
		t.Fatalf("human verdict: %d %s", r.Status, r.Body)
	}
	w := dig(a.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": e}), "workflow").(map[string]any)
	if w["status"] != "planned" || dig(w, "revision_context", "synopsis") != "tighten the method" {
		t.Fatalf("after the human verdict: %v", w)
	}
	if r := s.Do(t, http.MethodPost, path, s.OperatorToken, map[string]any{"verdict": "pass", "synopsis": "again"}); r.Status != http.StatusConflict {
		t.Fatalf("second answer: %d %s", r.Status, r.Body)
	}
	recordResearchHistory(t, s, "research-experiment/"+e, "human_review_needs_changes")
}
