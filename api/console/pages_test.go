package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestPages_ShowTheirKeyContent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	cases := []struct {
		path  string
		wants []string
	}{
		{"/console/approvals", []string{"<h1>Pending approvals</h1>", "exp_1", "Activating MDN drives backward walking", hashA,
			"condition_activate", "MDN_left: 0.64", "0.8 × gain 0.8", "500 ms", "3000 ms", "11, 12, 13", "Rate-based descending drive",
			"Full protocol as stored", ">Approve</button>", "Reason for rejecting",
			`href="http://ui.test:8233/namespaces/default/workflows/flylab-experiment%2Fexp_1"`}},
		{"/console/reviews", []string{"<h1>Human reviews</h1>", "rexp_7", "art_plan", "Experiment plan", "needs_changes",
			"reflecting", "Submit verdict"}},
		{"/console/rollouts", []string{"<h1>Rollouts</h1>", `id="count-queued">4<`, `id="count-leased">1<`,
			`id="count-completed">9<`, `id="count-excluded">2<`, `href="/console/rollouts/ro_1"`}},
		{"/console/rollouts/ro_1", []string{"<h1>Rollout ro_1</h1>", "worker-a", "worker-b", "expired", "gpt-test", "<td>5</td>",
			"Cancel rollout", "rollout%2Fro_1"}},
		{"/console/sessions", []string{"<h1>FlyLab sessions</h1>", "page_session_1", "agent_hypothesized",
			"Artifact manifest"}},
		{"/console/experiments", []string{"<h1>Research experiments</h1>", "rexp_7", "proj_1", "design_review", "Layer ablation",
			"research-experiment%2Frexp_7"}},
		{"/console/evidence", []string{"<h1>Evidence</h1>", `href="/console/evidence/bundle_1"`, "MDN backward walking"}},
		{"/console/evidence/bundle_1", []string{"<h1>Evidence bundle bundle_1</h1>", `<svg id="trajectories"`,
			"x position (mm)", "y position (mm)", "backward_distance_mm", `href="/console/evidence/bundle_1/export"`}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			rec := h.get(tc.path, ck)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d", tc.path, rec.Code)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			mustContain(t, rec.Body.String(), tc.wants...)
			mustContain(t, rec.Body.String(), "Signed in as olga", `aria-current="page"`)
		})
	}
}

func TestPages_UnavailableDomainsSaySoAndRefuseActions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) { o.Sources = Sources{} })
	ck, csrf := h.session()
	for path, what := range map[string]string{
		"/console/approvals": "FlyLab approvals", "/console/reviews": "Research reviews",
		"/console/rollouts": "Flywheel rollouts", "/console/sessions": "FlyLab sessions",
		"/console/experiments": "Research experiments",
		"/console/evidence":    "FlyLab evidence",
	} {
		rec := h.get(path, ck)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, rec.Code)
		}
		mustContain(t, rec.Body.String(), what+":</strong> not available in this deployment")
	}
	for _, path := range []string{"/console/approvals/exp_1/approve", "/console/reviews/rr_1/verdict", "/console/rollouts/ro_1/cancel"} {
		rec := h.post(path, url.Values{csrfField: {csrf}, "protocol_hash": {hashA}}, ck)
		if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "not available in this deployment") {
			t.Errorf("POST %s = %d, want 404 saying not available", path, rec.Code)
		}
	}
}

func TestPages_RootRedirectsToApprovalsAndUnknownIDsAre404(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	if rec := h.get("/console", ck); rec.Code != http.StatusMovedPermanently || !strings.HasSuffix(rec.Header().Get("Location"), "/console/") {
		t.Errorf("GET /console = %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := h.get("/console/", ck); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/console/approvals" {
		t.Errorf("GET /console/ = %d → %q", rec.Code, rec.Header().Get("Location"))
	}
	for _, p := range []string{"/console/rollouts/nope", "/console/evidence/nope", "/console/evidence/nope/export"} {
		if rec := h.get(p, ck); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, rec.Code)
		}
	}
}

func TestEvidence_ExportDownloadsTheDocument(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	rec := h.get("/console/evidence/bundle_1/export", ck)
	if rec.Code != http.StatusOK {
		t.Fatalf("export = %d", rec.Code)
	}
	if cd := rec.Header().Get("Content-Disposition"); cd != `attachment; filename="flylab-evidence-bundle_1.json"` {
		t.Errorf("Content-Disposition = %q", cd)
	}
	if rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != `{"schema_version":"x"}` {
		t.Errorf("export body %q (%s)", rec.Body.String(), rec.Header().Get("Content-Type"))
	}
}

func TestStatic_AssetsAreServedAndVersioned(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rec := h.get("/console/signin")
	page := rec.Body.String()
	i := strings.Index(page, "/console/static/live.js?v=")
	if i < 0 {
		t.Fatal("sign-in page does not reference the versioned script")
	}
	js := h.get("/console/static/live.js")
	if js.Code != http.StatusOK || !strings.HasPrefix(js.Header().Get("Content-Type"), "text/javascript") {
		t.Fatalf("live.js = %d %s", js.Code, js.Header().Get("Content-Type"))
	}
	if h.get("/console/static/console.css").Code != http.StatusOK {
		t.Error("console.css not served")
	}
	if h.get("/console/static/../console.go").Code == http.StatusOK {
		t.Error("served a file outside the static assets")
	}
}
