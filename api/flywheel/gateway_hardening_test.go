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

// callGateway posts a completion through the gateway on a real server and
// returns the status, the body and the error reading it (a cut stream).
func (e *testEnv) callGateway(g fwmodels.Grant, headers map[string]string) (int, string, error) {
	e.t.Helper()
	srv := httptest.NewServer(e.engine)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/llm/"+g.LLMToken+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
	req.Header.Set("Authorization", "Bearer "+g.APIKey)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }() // test cleanup: a close error fails nothing
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// observedCalls is the rollout's counted LLM calls and its recorded calls' statuses.
func (e *testEnv) observedCalls(id string) (int64, []int) {
	e.t.Helper()
	var r fwmodels.Rollout
	if err := e.db.Where("id = ?", id).Take(&r).Error; err != nil {
		e.t.Fatal(err)
	}
	calls, err := fwmodels.Calls(context.Background(), e.db, id)
	if err != nil {
		e.t.Fatal(err)
	}
	var statuses []int
	for _, c := range calls {
		statuses = append(statuses, c.Status)
	}
	return r.LLMCallsObserved, statuses
}

func TestGateway_ForwardsOnlyAllowListedHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen http.Header
	up := upstreamFunc(func(r *http.Request) *http.Response {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		return okUpstream(`{"choices":[]}`)(r)
	})
	e := newTestEnv(t, Options{Upstream: "http://upstream.test/v1", UpstreamKey: "sk-gatehouse", UpstreamClient: up})
	g := e.lease(time.Hour)
	if st, _, err := e.callGateway(g, map[string]string{"OpenAI-Organization": "org-victim", "OpenAI-Project": "proj-victim",
		"Cookie": "s=1", "X-Anything": "x", "User-Agent": "agent/1"}); err != nil || st != 200 {
		t.Fatalf("gateway: %d %v", st, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"Openai-Organization", "Openai-Project", "Cookie", "X-Anything", LeaseTokenHeader} {
		if seen.Get(k) != "" {
			t.Errorf("the upstream saw the caller's %s: %q", k, seen.Get(k))
		}
	}
	if seen.Get("Authorization") != "Bearer sk-gatehouse" || seen.Get("User-Agent") != "agent/1" || seen.Get("Content-Type") != "application/json" {
		t.Errorf("upstream headers %v", seen)
	}
}

func TestGateway_AnUpstreamThatNeverAnswersTimesOutAndCountsNothing(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer up.Close()
	defer close(release)
	e := newTestEnv(t, Options{Upstream: up.URL + "/v1", UpstreamHeaderTimeout: 300 * time.Millisecond})
	g := e.lease(time.Hour)
	start := time.Now()
	st, _, err := e.callGateway(g, nil)
	if err != nil || st != http.StatusBadGateway || time.Since(start) > 10*time.Second {
		t.Fatalf("a hanging upstream: %d %v after %s, want 502 within the header timeout", st, err, time.Since(start))
	}
	if n, statuses := e.observedCalls(g.Rollout.ID); n != 0 || len(statuses) != 1 || statuses[0] != http.StatusBadGateway {
		t.Fatalf("counted %d calls, recorded %v; want 0 and one 502", n, statuses)
	}
}

func TestGateway_AStreamTheUpstreamCutsIsAbortedAndCountsNothing(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n")
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack() // the upstream dies mid-stream
		if err == nil {
			_ = conn.Close()
		}
	}))
	defer up.Close()
	e := newTestEnv(t, Options{Upstream: up.URL + "/v1"})
	g := e.lease(time.Hour)
	st, body, err := e.callGateway(g, nil)
	if err == nil {
		t.Fatalf("the cut stream reached the agent as a clean %d response %q; it must be aborted", st, body)
	}
	if n, statuses := e.observedCalls(g.Rollout.ID); n != 0 || len(statuses) != 1 || statuses[0] != http.StatusBadGateway {
		t.Fatalf("counted %d calls, recorded %v; want 0 and one failed call", n, statuses)
	}
}
