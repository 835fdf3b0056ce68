package console

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	consolemodel "github.com/gatehouse/gatehouse/models/console"
	"github.com/gatehouse/gatehouse/models/platform"
)

func countSessions(t *testing.T, h *harness) int64 {
	t.Helper()
	var n int64
	if err := h.db.Model(&consolemodel.Session{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSecurity_NoSessionRedirectsPagesToSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, p := range []string{"/console/", "/console/approvals", "/console/reviews", "/console/rollouts",
		"/console/rollouts/ro_1", "/console/sessions", "/console/experiments", "/console/evidence", "/console/evidence/bundle_1",
		"/console/evidence/bundle_1/export"} {
		rec := h.get(p)
		loc := rec.Header().Get("Location")
		if rec.Code != http.StatusSeeOther || loc != "/console/signin?next="+url.QueryEscape(p) {
			t.Errorf("GET %s without session = %d → %q", p, rec.Code, loc)
		}
	}
	bogus := &http.Cookie{Name: sessionCookie, Value: "cs_" + strings.Repeat("f", 64)}
	if rec := h.get("/console/approvals", bogus); rec.Code != http.StatusSeeOther {
		t.Errorf("unknown session cookie = %d, want redirect", rec.Code)
	}
	if rec := h.get("/console/approvals/live"); rec.Code != http.StatusUnauthorized {
		t.Errorf("live without session = %d, want 401", rec.Code)
	}
}

func TestSecurity_PostWithoutSessionIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, csrf := h.session() // a real token, but sent without its session
	rec := h.post("/console/approvals/exp_1/approve", url.Values{csrfField: {csrf}, "protocol_hash": {hashA}})
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "not signed in") {
		t.Fatalf("approve without session = %d", rec.Code)
	}
	if h.approvals.decisions() != 0 {
		t.Fatal("approved without a session")
	}
}

func TestSecurity_SignInRefusesAgentKeysAndBadTokens(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		name, token string
		want        int
		msg         string
	}{
		{"agent key", h.agent, http.StatusForbidden, "Agent keys cannot open the console"},
		{"unknown operator token", "op_" + strings.Repeat("0", 64), http.StatusUnauthorized, "not a valid operator token"},
		{"garbage", "hello", http.StatusUnauthorized, "not a valid operator token"},
		{"empty", "", http.StatusUnauthorized, "not a valid operator token"},
	}
	for _, tc := range cases {
		rec := h.signIn(tc.token)
		if rec.Code != tc.want || !strings.Contains(rec.Body.String(), tc.msg) {
			t.Errorf("%s: sign-in = %d, want %d with %q", tc.name, rec.Code, tc.want, tc.msg)
		}
		for _, c := range rec.Result().Cookies() {
			if c.Name == sessionCookie && c.Value != "" {
				t.Errorf("%s: a session cookie was set", tc.name)
			}
		}
	}
	if n := countSessions(t, h); n != 0 {
		t.Fatalf("%d sessions stored after refused sign-ins", n)
	}
}

func TestSecurity_SignInFormNeedsItsCSRFToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.startSignIn()
	for name, form := range map[string]url.Values{
		"missing token": {"token": {h.operator}},
		"wrong token":   {"token": {h.operator}, csrfField: {strings.Repeat("0", 64)}},
	} {
		if rec := h.post("/console/signin", form, ck); rec.Code != http.StatusForbidden {
			t.Errorf("%s: sign-in = %d, want 403", name, rec.Code)
		}
	}
	if rec := h.post("/console/signin", url.Values{"token": {h.operator}, csrfField: {csrf}}); rec.Code != http.StatusForbidden {
		t.Errorf("no sign-in cookie: = %d, want 403", rec.Code)
	}
	if n := countSessions(t, h); n != 0 {
		t.Fatalf("%d sessions stored after forged sign-ins", n)
	}
}

func TestSecurity_BadOrMissingCSRFIsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	other := newHarness(t)
	_, otherCSRF := other.session()
	forms := map[string]url.Values{
		"missing":            {"protocol_hash": {hashA}},
		"empty":              {"protocol_hash": {hashA}, csrfField: {""}},
		"wrong":              {"protocol_hash": {hashA}, csrfField: {strings.Repeat("a", 64)}},
		"truncated":          {"protocol_hash": {hashA}, csrfField: {csrf[:63]}},
		"other session's":    {"protocol_hash": {hashA}, csrfField: {otherCSRF}},
		"in query, not form": nil,
	}
	for name, form := range forms {
		path := "/console/approvals/exp_1/approve"
		if form == nil {
			path += "?" + csrfField + "=" + csrf
			form = url.Values{"protocol_hash": {hashA}}
		}
		rec := h.post(path, form, ck)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "security token") {
			t.Errorf("%s CSRF token: approve = %d, want 403", name, rec.Code)
		}
	}
	for _, p := range []string{"/console/reviews/rr_1/verdict", "/console/rollouts/ro_1/cancel", "/console/signout"} {
		if rec := h.post(p, url.Values{"verdict": {"pass"}, "synopsis": {"x"}}, ck); rec.Code != http.StatusForbidden {
			t.Errorf("POST %s without CSRF = %d, want 403", p, rec.Code)
		}
	}
	if h.approvals.decisions() != 0 || len(h.reviews.submitted) != 0 || len(h.rollouts.cancelled) != 0 {
		t.Fatal("a request with a bad CSRF token changed something")
	}
	if countSessions(t, h) != 1 {
		t.Fatal("sign-out without a CSRF token ended the session")
	}
}

func TestSecurity_CrossOriginPostIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	rec := h.request(http.MethodPost, "/console/approvals/exp_1/approve", url.Values{csrfField: {csrf}, "protocol_hash": {hashA}},
		[]*http.Cookie{ck}, func(r *http.Request) { r.Header.Set("Origin", "https://evil.test") })
	if rec.Code != http.StatusForbidden || h.approvals.decisions() != 0 {
		t.Fatalf("cross-origin approve = %d (decisions %d)", rec.Code, h.approvals.decisions())
	}
	rec = h.request(http.MethodPost, "/console/approvals/exp_1/approve", url.Values{csrfField: {csrf}, "protocol_hash": {hashA}},
		[]*http.Cookie{ck}, func(r *http.Request) { r.Header.Set("Origin", "http://example.test") })
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("same-origin approve = %d", rec.Code)
	}
}

func TestSecurity_CookieFlags(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, c *http.Cookie, secure bool) {
		t.Helper()
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/console" || c.Secure != secure {
			t.Errorf("cookie %s: HttpOnly=%v SameSite=%v Path=%q Secure=%v (want Secure=%v)", c.Name, c.HttpOnly, c.SameSite, c.Path, c.Secure, secure)
		}
	}
	t.Run("plain http", func(t *testing.T) {
		h := newHarness(t)
		rec := h.signIn(h.operator)
		c := cookieNamed(t, rec, sessionCookie)
		check(t, c, false)
		if c.MaxAge != int(DefaultSessionTTL.Seconds()) || !strings.HasPrefix(c.Value, "cs_") {
			t.Errorf("session cookie MaxAge=%d value %q", c.MaxAge, c.Value[:3])
		}
		check(t, cookieNamed(t, h.get("/console/signin"), signInCookie), false)
	})
	t.Run("TLS request", func(t *testing.T) {
		h := newHarness(t)
		tlsReq := func(r *http.Request) { r.TLS = &tls.ConnectionState{} }
		page := h.request(http.MethodGet, "/console/signin", nil, nil, tlsReq)
		pre := cookieNamed(t, page, signInCookie)
		check(t, pre, true)
		rec := h.request(http.MethodPost, "/console/signin", url.Values{csrfField: {inputValue(t, page.Body.String(), csrfField)},
			"token": {h.operator}}, []*http.Cookie{pre}, tlsReq)
		check(t, cookieNamed(t, rec, sessionCookie), true)
	})
	t.Run("https public URL", func(t *testing.T) {
		h := newHarness(t, func(o *Options) { o.PublicURL = "https://gatehouse.example" })
		check(t, cookieNamed(t, h.signIn(h.operator), sessionCookie), true)
	})
}

func TestSecurity_StoredSessionIsHashedAndExpires(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	var s consolemodel.Session
	if err := h.db.Take(&s).Error; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ck.Value, s.IDHash) || s.IDHash == ck.Value {
		t.Fatal("the session id is stored in plaintext")
	}
	h.now = h.now.Add(DefaultSessionTTL + time.Second)
	if rec := h.get("/console/approvals", ck); rec.Code != http.StatusSeeOther {
		t.Fatalf("expired session = %d, want redirect to sign-in", rec.Code)
	}
}

func TestSecurity_RevokedOperatorLosesTheSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	p, err := platform.Authenticate(context.Background(), h.db, h.operator)
	if err != nil {
		t.Fatal(err)
	}
	if err := platform.Revoke(context.Background(), h.db, p.CredentialID); err != nil {
		t.Fatal(err)
	}
	if rec := h.get("/console/approvals", ck); rec.Code != http.StatusSeeOther {
		t.Fatalf("revoked operator's session = %d, want redirect", rec.Code)
	}
}

func TestSecurity_SignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, csrf := h.session()
	rec := h.post("/console/signout", url.Values{csrfField: {csrf}}, ck)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("sign-out = %d", rec.Code)
	}
	if c := cookieNamed(t, rec, sessionCookie); c.MaxAge >= 0 || c.Value != "" {
		t.Errorf("sign-out left the cookie: %+v", c)
	}
	if rec := h.get("/console/approvals", ck); rec.Code != http.StatusSeeOther {
		t.Fatalf("old cookie after sign-out = %d, want redirect", rec.Code)
	}
	if countSessions(t, h) != 0 {
		t.Fatal("the session row survived sign-out")
	}
}

func TestSecurity_NextStaysInsideTheConsole(t *testing.T) {
	t.Parallel()
	for next, want := range map[string]string{
		"/console/rollouts/ro_1": "/console/rollouts/ro_1",
		"//evil.test/":           "/console/approvals",
		"https://evil.test/":     "/console/approvals",
		"/console//evil.test":    "/console/approvals",
		"/console/signin":        "/console/approvals",
		"":                       "/console/approvals",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
	h := newHarness(t)
	ck, csrf := h.startSignIn()
	rec := h.post("/console/signin", url.Values{csrfField: {csrf}, "token": {h.operator}, "next": {"/console/rollouts"}}, ck)
	if rec.Header().Get("Location") != "/console/rollouts" {
		t.Errorf("sign-in with next → %q", rec.Header().Get("Location"))
	}
}

func TestSecurity_HeadersOnEveryPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rec := h.get("/console/signin")
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if rec.Header().Get("X-Frame-Options") != "DENY" || rec.Header().Get("Cache-Control") != "no-store" ||
		rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers: %v", rec.Header())
	}
}

func TestSecurity_BearerHeadersDoNotOpenTheConsole(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, token := range []string{h.agent, h.operator} {
		bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
		if rec := h.request(http.MethodGet, "/console/approvals", nil, nil, bearer); rec.Code != http.StatusSeeOther {
			t.Errorf("GET with a bearer %s… = %d, want a redirect to sign in", token[:3], rec.Code)
		}
		rec := h.request(http.MethodPost, "/console/approvals/exp_1/approve", url.Values{"protocol_hash": {hashA}}, nil, bearer)
		if rec.Code != http.StatusForbidden {
			t.Errorf("POST with a bearer %s… = %d, want 403", token[:3], rec.Code)
		}
	}
	if h.approvals.decisions() != 0 {
		t.Fatal("a bearer header approved an experiment")
	}
}
