package flywheel

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
)

// upstreamFunc is a fake OpenAI-compatible upstream.
type upstreamFunc func(*http.Request) *http.Response

func (f upstreamFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r), nil }

func okUpstream(body string) upstreamFunc {
	return func(*http.Request) *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
	}
}

// clock is a settable Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// complete calls the gateway over a real server (the proxy needs a
// response writer that can tell a closed connection).
func (e *testEnv) complete(g fwmodels.Grant, body string) result {
	e.t.Helper()
	srv := httptest.NewServer(e.engine)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/llm/"+g.LLMToken+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+g.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }() // test cleanup: a close error fails nothing
	b, _ := io.ReadAll(resp.Body)
	return result{Status: resp.StatusCode, Body: b}
}

func TestGateway_AnExpiredOrSupersededLeasesURLIs410AndTheRetryIsOnPolicy(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Now()}
	e := newTestEnv(t, Options{Upstream: "http://upstream.test/v1", UpstreamClient: okUpstream(`{"choices":[]}`), Now: clk.now})
	id := fwmodels.NewRolloutID()
	if _, _, err := fwmodels.Enqueue(context.Background(), e.db, fwmodels.NewRollout{ID: id, TurnInput: "x", DeadlineAt: clk.now().Add(time.Hour), MaxAttempts: 3}); err != nil {
		t.Fatal(err)
	}
	claim := func() fwmodels.Grant {
		gs, err := fwmodels.Claim(context.Background(), e.db, fwmodels.Claimant{CredentialID: "c", AllProjects: true}, 1, 10*time.Second, clk.now())
		if err != nil || len(gs) != 1 {
			t.Fatalf("claim: %v %d", err, len(gs))
		}
		return gs[0]
	}
	g1 := claim()
	for i := 0; i < 2; i++ {
		if r := e.complete(g1, `{"model":"m","messages":[]}`); r.Status != 200 {
			t.Fatalf("call %d: %d %s", i, r.Status, r.Body)
		}
	}
	clk.add(11 * time.Second)
	if r := e.complete(g1, `{"model":"m"}`); r.Status != http.StatusGone {
		t.Fatalf("an expired lease's llm_url: %d %s, want 410", r.Status, r.Body)
	}
	if _, err := fwmodels.ExpireLease(context.Background(), e.db, id, 1, 0, clk.now()); err != nil {
		t.Fatal(err)
	}
	g2 := claim()
	if r := e.complete(g1, `{"model":"m"}`); r.Status != http.StatusGone {
		t.Fatalf("a superseded lease's llm_url: %d %s, want 410", r.Status, r.Body)
	}
	if r := e.complete(g2, `{"model":"m"}`); r.Status != 200 {
		t.Fatalf("current lease: %d %s", r.Status, r.Body)
	}
	if r := e.output(g2, `{"final_text":"done","tool_calls":[],"llm_call_count":1}`); r.Status != 200 {
		t.Fatalf("output: %d %s", r.Status, r.Body)
	}
	var v struct {
		LLMCallsObserved int64 `json:"llm_calls_observed"`
		OnPolicy         *bool `json:"on_policy"`
	}
	e.do(http.MethodGet, "/operator/v1/rollouts/"+id, e.opToken, nil).decode(t, &v)
	if v.LLMCallsObserved != 1 || v.OnPolicy == nil || !*v.OnPolicy {
		t.Fatalf("the retry made one call and reported one: observed %d on_policy %v", v.LLMCallsObserved, v.OnPolicy)
	}
}
