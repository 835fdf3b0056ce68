package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestApprove_CallsTheSourceWithTheShownHashAndOperator(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	rec := h.post("/console/approvals/exp_1/approve", url.Values{csrfField: {csrf}, "protocol_hash": {hashA}}, ck)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("approve = %d: %s", rec.Code, rec.Body.String())
	}
	if got := h.approvals.approved["exp_1"]; got != hashA {
		t.Fatalf("approved hash = %q, want %q", got, hashA)
	}
	if h.approvals.by[0].Name != "olga" || h.approvals.by[0].CredentialID == "" {
		t.Errorf("approval attributed to %+v", h.approvals.by[0])
	}
	page := h.get(rec.Header().Get("Location"), ck)
	mustContain(t, page.Body.String(), "Approved experiment exp_1", "No experiments are waiting for approval.")
}

func TestApprove_RefusedInputChangesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path string
		form       url.Values
		want       int
		msg        string
	}{
		{"stale hash", "/console/approvals/exp_1/approve", url.Values{"protocol_hash": {hashB}}, http.StatusConflict, "the protocol changed"},
		{"malformed hash", "/console/approvals/exp_1/approve", url.Values{"protocol_hash": {"sha256:xyz"}}, http.StatusBadRequest, "valid protocol hash"},
		{"no hash", "/console/approvals/exp_1/approve", url.Values{}, http.StatusBadRequest, "valid protocol hash"},
		{"unknown experiment", "/console/approvals/exp_9/approve", url.Values{"protocol_hash": {hashA}}, http.StatusNotFound, "does not exist"},
		{"reject without reason", "/console/approvals/exp_1/reject", url.Values{"protocol_hash": {hashA}, "reason": {"  "}}, http.StatusBadRequest, "needs a reason"},
		{"reject with huge reason", "/console/approvals/exp_1/reject", url.Values{"protocol_hash": {hashA}, "reason": {strings.Repeat("x", 1001)}}, http.StatusBadRequest, "needs a reason"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			ck, csrf := h.session()
			tc.form.Set(csrfField, csrf)
			rec := h.post(tc.path, tc.form, ck)
			if rec.Code != tc.want {
				t.Fatalf("status = %d, want %d: %s", rec.Code, tc.want, rec.Body.String())
			}
			mustContain(t, rec.Body.String(), tc.msg, `role="alert"`)
			if h.approvals.decisions() != 0 {
				t.Fatal("a refused request recorded a decision")
			}
			mustContain(t, rec.Body.String(), `data-experiment="exp_1"`)
		})
	}
}

func TestReject_SendsTheReason(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	rec := h.post("/console/approvals/exp_1/reject", url.Values{csrfField: {csrf}, "protocol_hash": {hashA}, "reason": {"Seeds too few"}}, ck)
	if rec.Code != http.StatusSeeOther || h.approvals.rejected["exp_1"] != "Seeds too few" {
		t.Fatalf("reject = %d, recorded %q", rec.Code, h.approvals.rejected["exp_1"])
	}
}

func TestVerdict_SubmitsValidAndRefusesInvalid(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	bad := []url.Values{
		{"verdict": {"maybe"}, "synopsis": {"ok"}},
		{"verdict": {"pass"}, "synopsis": {" "}},
		{"verdict": {"needs_changes"}, "synopsis": {"redo"}, "return_to": {"nowhere"}},
		{"verdict": {"pass"}, "synopsis": {"fine"}, "return_to": {"planned"}},
		{"verdict": {"fail"}, "synopsis": {strings.Repeat("s", 4001)}},
	}
	for _, form := range bad {
		form.Set(csrfField, csrf)
		rec := h.post("/console/reviews/rr_1/verdict", form, ck)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "Nothing was submitted") {
			t.Errorf("verdict %v = %d, want 400", form, rec.Code)
		}
	}
	if len(h.reviews.submitted) != 0 {
		t.Fatalf("invalid verdicts were submitted: %v", h.reviews.submitted)
	}
	rec := h.post("/console/reviews/rr_1/verdict", url.Values{csrfField: {csrf}, "verdict": {"needs_changes"},
		"synopsis": {"Add a control"}, "return_to": {"planned"}}, ck)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("valid verdict = %d: %s", rec.Code, rec.Body.String())
	}
	want := Verdict{Verdict: "needs_changes", Synopsis: "Add a control", ReturnTo: "planned"}
	if h.reviews.submitted["rr_1"] != want {
		t.Fatalf("submitted %+v, want %+v", h.reviews.submitted["rr_1"], want)
	}
	if rec := h.post("/console/reviews/rr_1/verdict", url.Values{csrfField: {csrf}, "verdict": {"pass"}, "synopsis": {"again"}}, ck); rec.Code != http.StatusNotFound {
		t.Errorf("second verdict on a closed request = %d, want 404", rec.Code)
	}
}

func TestCancelRollout_CancelsOnceThenConflicts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	rec := h.post("/console/rollouts/ro_1/cancel", url.Values{csrfField: {csrf}, "reason": {"runaway"}}, ck)
	if rec.Code != http.StatusSeeOther || h.rollouts.cancelled["ro_1"] != "runaway" {
		t.Fatalf("cancel = %d, recorded %q", rec.Code, h.rollouts.cancelled["ro_1"])
	}
	page := h.get(rec.Header().Get("Location"), ck)
	mustContain(t, page.Body.String(), "Cancelled rollout ro_1", "has finished and cannot be cancelled")
	if rec := h.post("/console/rollouts/ro_1/cancel", url.Values{csrfField: {csrf}}, ck); rec.Code != http.StatusConflict {
		t.Errorf("second cancel = %d, want 409", rec.Code)
	}
	if rec := h.post("/console/rollouts/ro_9/cancel", url.Values{csrfField: {csrf}}, ck); rec.Code != http.StatusNotFound {
		t.Errorf("cancel unknown = %d, want 404", rec.Code)
	}
}

func TestDoneNotice_IgnoresCraftedIDs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	rec := h.get("/console/approvals?done=approved&id="+url.QueryEscape("<b>all approved</b> call 555"), ck)
	if strings.Contains(rec.Body.String(), "all approved") {
		t.Fatal("a crafted id was echoed into the notice")
	}
}
