package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/net/html"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
)

// harness is a console on a real (SQLite) session store with fake domains.
type harness struct {
	t        *testing.T
	engine   *gin.Engine
	db       *gorm.DB
	operator string
	agent    string
	now      time.Time

	approvals *fakeApprovals
	reviews   *fakeReviews
	rollouts  *fakeRollouts
	evidence  *fakeEvidence
}

// newHarness builds a console with every domain faked; edit adjusts the
// options (drop sources, set PublicURL) before the console is built.
func newHarness(t *testing.T, edit ...func(*Options)) *harness {
	t.Helper()
	return newHarnessOn(t, modelstest.SQLite(t), edit...)
}

// newHarnessOn is newHarness on a given migrated database.
func newHarnessOn(t *testing.T, db *gorm.DB, edit ...func(*Options)) *harness {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	h := &harness{t: t, db: db, now: time.Now(),
		approvals: newFakeApprovals(), reviews: newFakeReviews(), rollouts: newFakeRollouts(), evidence: newFakeEvidence()}
	ctx := context.Background()
	op, err := platform.Mint(ctx, h.db, platform.MintRequest{Role: platform.RoleOperator, Name: "olga"})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := platform.Mint(ctx, h.db, platform.MintRequest{Role: platform.RoleAgent, Name: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	h.operator, h.agent = op.Plaintext, ag.Plaintext
	o := Options{
		DB: h.db, PublicURL: "http://example.test", TemporalUIURL: "http://ui.test:8233", Namespace: "default",
		Now: func() time.Time { return h.now },
		Sources: Sources{Approvals: h.approvals, Reviews: h.reviews, Rollouts: h.rollouts,
			Sessions: fakeSessions{}, Experiments: fakeExperiments{}, Evidence: h.evidence},
	}
	for _, e := range edit {
		e(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.engine = gin.New()
	c.Mount(rest.NewRouter(h.engine, rest.NewDocument("test", "test")))
	return h
}

// request sends a request with the given cookies; a non-nil form is POSTed.
func (h *harness) request(method, path string, form url.Values, cookies []*http.Cookie, edit ...func(*http.Request)) *httptest.ResponseRecorder {
	h.t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, "http://example.test"+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, "http://example.test"+path, nil)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	for _, e := range edit {
		e(req)
	}
	rec := httptest.NewRecorder()
	h.engine.ServeHTTP(rec, req)
	return rec
}

func (h *harness) get(path string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	h.t.Helper()
	return h.request(http.MethodGet, path, nil, cookies)
}

func (h *harness) post(path string, form url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	h.t.Helper()
	return h.request(http.MethodPost, path, form, cookies)
}

// startSignIn fetches the sign-in form: its cookie and CSRF token.
func (h *harness) startSignIn() (*http.Cookie, string) {
	h.t.Helper()
	rec := h.get("/console/signin")
	if rec.Code != http.StatusOK {
		h.t.Fatalf("GET /console/signin = %d", rec.Code)
	}
	return cookieNamed(h.t, rec, signInCookie), inputValue(h.t, rec.Body.String(), csrfField)
}

// signIn signs in with a token and returns the response.
func (h *harness) signIn(token string) *httptest.ResponseRecorder {
	h.t.Helper()
	ck, csrf := h.startSignIn()
	return h.post("/console/signin", url.Values{csrfField: {csrf}, "token": {token}}, ck)
}

// session signs the operator in and returns the session cookie and the
// CSRF token its pages carry.
func (h *harness) session() (*http.Cookie, string) {
	h.t.Helper()
	rec := h.signIn(h.operator)
	if rec.Code != http.StatusSeeOther {
		h.t.Fatalf("sign-in = %d: %s", rec.Code, rec.Body.String())
	}
	ck := cookieNamed(h.t, rec, sessionCookie)
	page := h.get("/console/approvals", ck)
	if page.Code != http.StatusOK {
		h.t.Fatalf("approvals after sign-in = %d", page.Code)
	}
	return ck, inputValue(h.t, page.Body.String(), csrfField)
}

func cookieNamed(t *testing.T, rec *httptest.ResponseRecorder, name string) *http.Cookie {
	t.Helper()
	for _, c := range rec.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("response sets no %s cookie (Set-Cookie: %q)", name, rec.Header().Values("Set-Cookie"))
	return nil
}

// inputValue returns the value of the first input named name.
func inputValue(t *testing.T, page, name string) string {
	t.Helper()
	var found string
	walk(parse(t, page), func(n *html.Node) {
		if found == "" && n.Type == html.ElementNode && n.Data == "input" && attr(n, "name") == name {
			found = attr(n, "value")
		}
	})
	if found == "" {
		t.Fatalf("no input %q with a value in the page", name)
	}
	return found
}

func parse(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func walk(n *html.Node, fn func(*html.Node)) {
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func mustContain(t *testing.T, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}
