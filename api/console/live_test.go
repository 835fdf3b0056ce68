package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestLive_FragmentListsPendingAndAnswers204WhenUnchanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	rec := h.get("/console/approvals/live", ck)
	if rec.Code != http.StatusOK {
		t.Fatalf("live = %d", rec.Code)
	}
	version := rec.Header().Get("X-Console-Version")
	body := rec.Body.String()
	if version == "" || strings.Contains(body, "<html") {
		t.Fatalf("live answer is not a versioned fragment (version %q)", version)
	}
	mustContain(t, body, `data-experiment="exp_1"`, hashA, `value="`+csrf+`"`)
	have := h.request(http.MethodGet, "/console/approvals/live", nil, []*http.Cookie{ck},
		func(r *http.Request) { r.Header.Set("X-Console-Have", version) })
	if have.Code != http.StatusNoContent {
		t.Fatalf("unchanged list = %d, want 204", have.Code)
	}
	h.post("/console/approvals/exp_1/approve", url.Values{csrfField: {csrf}, "protocol_hash": {hashA}}, ck)
	changed := h.request(http.MethodGet, "/console/approvals/live", nil, []*http.Cookie{ck},
		func(r *http.Request) { r.Header.Set("X-Console-Have", version) })
	if changed.Code != http.StatusOK || changed.Header().Get("X-Console-Version") == version {
		t.Fatalf("after approval: %d with version %q", changed.Code, changed.Header().Get("X-Console-Version"))
	}
	mustContain(t, changed.Body.String(), "No experiments are waiting")
	page := h.get("/console/approvals", ck).Body.String()
	mustContain(t, page, `data-live="/console/approvals/live"`, "Refresh the list")
}
