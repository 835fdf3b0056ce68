package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/runner"
)

// fakeLLM is an OpenAI-compatible upstream: chat completions, streamed or
// not. It records the bearer it was sent.
type fakeLLM struct {
	mu    sync.Mutex
	auths []string
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.auths = append(f.auths, r.Header.Get("Authorization"))
	f.mu.Unlock()
	var req struct {
		Stream bool `json:"stream"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, tok := range []string{"hel", "lo"} {
		_, _ = fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", tok)
		w.(http.Flusher).Flush()
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

type claimed struct {
	Rollouts []struct {
		RolloutID      string  `json:"rollout_id"`
		LLMURL         string  `json:"llm_url"`
		APIKey         string  `json:"api_key"`
		LeaseToken     string  `json:"lease_token"`
		LeaseExpiresTS float64 `json:"lease_expires_ts"`
	} `json:"rollouts"`
	PollAfterMS int `json:"poll_after_ms"`
}

type rolloutRecord struct {
	Status               string          `json:"status"`
	Attempts             int             `json:"attempts"`
	ToolCalls            json.RawMessage `json:"tool_calls"`
	LLMCallsObserved     int             `json:"llm_calls_observed"`
	LLMCallCountReported *int            `json:"llm_call_count_reported"`
	OnPolicy             *bool           `json:"on_policy"`
	LeaseHistory         []any           `json:"lease_history"`
	Output               *struct {
		FinalText string         `json:"final_text"`
		Artifacts map[string]any `json:"artifacts"`
	} `json:"output"`
}

func enqueueOne(t *testing.T, s *Stack, input string) string {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/operator/v1/rollouts", s.OperatorToken, map[string]any{"rollouts": []any{map[string]any{"turn_input": input, "deadline_s": 120}}})
	var out struct {
		RolloutIDs []string `json:"rollout_ids"`
	}
	r.JSON(t, &out)
	if r.Status != http.StatusCreated || len(out.RolloutIDs) != 1 {
		t.Fatalf("enqueue: %d %s", r.Status, r.Body)
	}
	return out.RolloutIDs[0]
}

func waitRollout(t *testing.T, s *Stack, id string, ok func(rolloutRecord) bool) rolloutRecord {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var rec rolloutRecord
		s.Do(t, http.MethodGet, "/operator/v1/rollouts/"+id, s.OperatorToken, nil).JSON(t, &rec)
		if ok(rec) {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("rollout %s never reached the wanted state: %+v", id, rec)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func gatewayPost(t *testing.T, url, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestFlywheel_ClaimHeartbeatGatewayOutputAndExpiry(t *testing.T) {
	llm := &fakeLLM{}
	up := httptest.NewServer(llm)
	defer up.Close()
	s := StartStack(t, StackOptions{Env: map[string]string{
		"GATEHOUSE_LLM_UPSTREAM_URL": up.URL + "/v1", "GATEHOUSE_LLM_UPSTREAM_API_KEY": "sk-upstream",
		"GATEHOUSE_FLYWHEEL_LEASE_MIN": "1s",
	}})
	id := enqueueOne(t, s, "what is 2+2?")
	r := s.Do(t, http.MethodPost, "/flywheel/claim", s.APIKey, map[string]any{"max_rollouts": 4, "lease_s": 30})
	var c claimed
	r.JSON(t, &c)
	if r.Status != 200 || len(c.Rollouts) != 1 || c.Rollouts[0].RolloutID != id {
		t.Fatalf("claim: %d %s", r.Status, r.Body)
	}
	ro := c.Rollouts[0]
	lease := []string{"Flywheel-Lease-Token", ro.LeaseToken}
	if hb := s.Do(t, http.MethodPost, "/flywheel/rollouts/"+id+"/heartbeat", ro.APIKey, nil, lease...); hb.Status != 200 {
		t.Fatalf("heartbeat: %d %s", hb.Status, hb.Body)
	}
	if st, body := gatewayPost(t, ro.LLMURL, ro.APIKey, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`); st != 200 || !strings.Contains(body, "chat.completion") {
		t.Fatalf("completion: %d %s", st, body)
	}
	if st, body := gatewayPost(t, ro.LLMURL, ro.APIKey, `{"model":"m","stream":true,"messages":[]}`); st != 200 || !strings.Contains(body, "[DONE]") {
		t.Fatalf("streamed completion: %d %s", st, body)
	}
	if st, _ := gatewayPost(t, ro.LLMURL, s.APIKey, `{}`); st != http.StatusForbidden {
		t.Fatalf("the gateway must refuse another key: %d", st)
	}
	out := s.Do(t, http.MethodPost, "/flywheel/rollouts/"+id+"/output", ro.APIKey,
		map[string]any{"final_text": "4", "tool_calls": []any{}, "llm_call_count": 2}, lease...)
	if out.Status != 200 {
		t.Fatalf("output: %d %s", out.Status, out.Body)
	}
	rec := waitRollout(t, s, id, func(r rolloutRecord) bool { return r.Status == "completed" })
	if rec.LLMCallsObserved != 2 || rec.OnPolicy == nil || !*rec.OnPolicy || string(rec.ToolCalls) != "[]" || rec.Attempts != 1 {
		t.Fatalf("record: %+v", rec)
	}
	for _, a := range llm.auths {
		if a != "Bearer sk-upstream" {
			t.Fatalf("the upstream saw %q: the rollout key must never leave", a)
		}
	}
	if st, _ := gatewayPost(t, ro.LLMURL, ro.APIKey, `{}`); st != http.StatusGone && st != http.StatusNotFound {
		t.Fatalf("the llm_url must stop working after the output: %d", st)
	}
	recordRolloutHistory(t, s, id, "rollout_completed_local_finalize")

	// An expired lease returns the rollout to the queue with a new attempt.
	id2 := enqueueOne(t, s, "slow one")
	s.Do(t, http.MethodPost, "/flywheel/claim", s.APIKey, map[string]any{"max_rollouts": 1, "lease_s": 1}).JSON(t, &c)
	if len(c.Rollouts) != 1 || c.Rollouts[0].RolloutID != id2 {
		t.Fatalf("claim 2: %+v", c)
	}
	first := c.Rollouts[0]
	waitRollout(t, s, id2, func(r rolloutRecord) bool { return r.Status == "queued" && r.Attempts == 1 })
	s.Do(t, http.MethodPost, "/flywheel/claim", s.APIKey, map[string]any{"max_rollouts": 1, "lease_s": 30}).JSON(t, &c)
	if len(c.Rollouts) != 1 || c.Rollouts[0].RolloutID != id2 || c.Rollouts[0].LeaseToken == first.LeaseToken {
		t.Fatalf("re-claim must hand the rollout out again with a new token: %+v", c)
	}
	if hb := s.Do(t, http.MethodPost, "/flywheel/rollouts/"+id2+"/heartbeat", first.APIKey, nil, "Flywheel-Lease-Token", first.LeaseToken); hb.Status != http.StatusConflict {
		t.Fatalf("the expired holder must be fenced: %d %s", hb.Status, hb.Body)
	}
	if cr := s.Do(t, http.MethodPost, "/operator/v1/rollouts/"+id2+"/cancel", s.OperatorToken, nil); cr.Status != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", cr.Status, cr.Body)
	}
	waitRollout(t, s, id2, func(r rolloutRecord) bool { return r.Status == "excluded" })
	recordRolloutHistory(t, s, id2, "rollout_expired_requeued_cancelled_local_finalize")

	// The runner drives a small shell agent end to end.
	id3 := enqueueOne(t, s, "runner input")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	script := `echo "agent saw: $GATEHOUSE_TURN_INPUT"; printf 'notes' > "$GATEHOUSE_ARTIFACTS_DIR/notes.txt"`
	if err := runner.Run(ctx, runner.Options{Server: s.APIURL, AgentKey: s.APIKey, Command: []string{"sh", "-c", script},
		WorkDir: t.TempDir(), MaxRollouts: 1, LeaseS: 30}); err != nil {
		t.Fatal(err)
	}
	rec = waitRollout(t, s, id3, func(r rolloutRecord) bool { return r.Status == "completed" })
	if rec.Output == nil || rec.Output.FinalText != "agent saw: runner input" || string(rec.ToolCalls) != "null" || rec.Artifacts("notes.txt") != "notes" {
		t.Fatalf("runner record: %+v", rec)
	}
}

// Artifacts returns an inlined artifact's content.
func (r rolloutRecord) Artifacts(name string) string {
	if r.Output == nil {
		return ""
	}
	m, _ := r.Output.Artifacts[name].(map[string]any)
	s, _ := m["content"].(string)
	return s
}

// recordRolloutHistory writes the workflow's history for the replay test when
// GATEHOUSE_RECORD_HISTORIES=1.
func recordRolloutHistory(t *testing.T, s *Stack, rolloutID, name string) {
	t.Helper()
	writeHistory(t, s, "rollout/"+rolloutID, "flywheel/testdata/histories", name)
}
