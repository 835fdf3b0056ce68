package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// flyApproved is a FlyLab session whose experiment an operator approved.
type flyApproved struct {
	sid, hyp, expID, hash string
	rev                   any
}

// approveFlyExperiment drives a fresh FlyLab session through inspect →
// find → draft → design (designArgs with edits applied) → operator
// approve, and returns what run_fly_simulation needs.
func approveFlyExperiment(t testing.TB, s *Stack, c flyContract, edits map[string]any) flyApproved {
	t.Helper()
	call := func(tool string, args any) map[string]any { return flyTool(t, s, c, s.APIKey, tool, args) }
	sid, hyp, draftRev := draftMDNHypothesis(t, call)
	args := designArgs(sid, draftRev, hyp, 5)
	for k, v := range edits {
		args[k] = v
	}
	exp := mustOK(t, call("design_stimulation_trial", args))["experiment"].(map[string]any)
	expID, hash := exp["id"].(string), exp["protocolHash"].(string)
	if r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", s.OperatorToken,
		map[string]any{"protocol_hash": hash}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	cur := call("inspect_flylab_state", nil)
	return flyApproved{sid: sid, hyp: hyp, expID: expID, hash: hash, rev: cur["state_revision"]}
}

// draftMDNHypothesis drives a fresh session through inspect → find →
// draft (the MDN backward-walking hypothesis) with call, and returns the
// session, the hypothesis and the revision after the draft.
func draftMDNHypothesis(t testing.TB, call func(tool string, args any) map[string]any) (sid, hyp string, rev any) {
	t.Helper()
	cur := call("inspect_flylab_state", nil)
	sid = cur["page_session_id"].(string)
	found := call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"query": "moonwalker backward walking", "behavior": "backward_walking"})
	drafted := call("draft_fly_hypothesis", map[string]any{"page_session_id": sid, "expected_state_revision": found["state_revision"],
		"circuit_id": "circuit_mdn_backward", "claim": "Activating MDN drives backward walking in the model.",
		"predicted_behavior": "backward_walking", "perturbation": "activate", "primary_outcome": "backward_distance_mm",
		"expected_direction": "increase", "controls": []string{"condition_baseline", "condition_sham"},
		"evidence_ids": []string{"E-MDN-ACTIVATION-001"}, "evidence_limitations": []string{"Reduced-order model only."},
		"falsification_criterion": "No increase over sham."})
	return sid, mustOK(t, drafted)["hypothesis"].(map[string]any)["id"].(string), drafted["state_revision"]
}

// runArgs are run_fly_simulation arguments for the approved experiment.
func (a flyApproved) runArgs(rev any, op string) map[string]any {
	return map[string]any{"page_session_id": a.sid, "expected_state_revision": rev, "experiment_id": a.expID,
		"approved_protocol_hash": a.hash, "operation_id": op}
}

// post sends a JSON POST with a bearer token and returns the response or
// the transport error, so goroutines can report failures to the test
// goroutine instead of calling t.Fatal themselves.
func post(url, token string, body any, timeout time.Duration) (Response, error) {
	return postWith(url, token, body, timeout)
}

// postWith is post with extra header name/value pairs.
func postWith(url, token string, body any, timeout time.Duration, headers ...string) (Response, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return Response{}, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		return Response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		return Response{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, err
}
