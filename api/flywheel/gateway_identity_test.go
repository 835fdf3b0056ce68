package flywheel

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestGateway_RecordsTheServerDerivedIdentityTheToolCallJoinAndTheTriState:
// the gateway records the rendered-prompt digest, the tool-schema digest
// and the sampling parameters of each call, the tool_call_ids a completion
// emitted and those the next request answers, so a reported tool call is
// joined to the completion that emitted it; stored tool calls carry the
// ok/failed/unknown → true/false/null tri-state.
func TestGateway_RecordsTheServerDerivedIdentityTheToolCallJoinAndTheTriState(t *testing.T) {
	t.Parallel()
	upstream := upstreamFunc(func(r *http.Request) *http.Response {
		body := `{"choices":[{"message":{"role":"assistant","content":"done"}}]}`
		if b, _ := io.ReadAll(r.Body); !strings.Contains(string(b), `"role":"tool"`) {
			body = `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{}"}}]}}]}`
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
	})
	e := newTestEnv(t, Options{Upstream: "http://upstream.test/v1", UpstreamClient: upstream})
	g := e.lease(time.Hour)
	tools := `[{"type":"function","function":{"name":"search","parameters":{"type":"object"}}}]`
	first := `{"model":"m","temperature":0.2,"seed":7,"messages":[{"role":"user","content":"hi"}],"tools":` + tools + `}`
	second := `{"model":"m","temperature":0.2,"seed":7,"tools":` + tools + `,"messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"r"}]}`
	for _, b := range []string{first, second} {
		if r := e.complete(g, b); r.Status != 200 {
			t.Fatalf("call: %d %s", r.Status, r.Body)
		}
	}
	out := `{"final_text":"done","llm_call_count":2,"tool_calls":[` +
		`{"name":"search","outcome":"ok","status_code":200,"tool_call_id":"call_1"},` +
		`{"name":"write","outcome":"failed","status_code":500},{"name":"other","outcome":"unknown","status_code":null}]}`
	if r := e.output(g, out); r.Status != 200 {
		t.Fatalf("output: %d %s", r.Status, r.Body)
	}
	var v struct {
		Calls []struct {
			ID       string          `json:"id"`
			Prompt   string          `json:"rendered_prompt_sha256"`
			Tools    string          `json:"tool_schema_sha256"`
			Sampling json.RawMessage `json:"sampling_params"`
			Results  json.RawMessage `json:"tool_result_ids"`
			Emitted  json.RawMessage `json:"emitted_tool_call_ids"`
		} `json:"gateway_calls_derived"`
		EmittedBy map[string]string `json:"tool_call_emitted_by"`
		Output    struct {
			Landed json.RawMessage `json:"tool_call_landed"`
		} `json:"output"`
	}
	e.do(http.MethodGet, "/operator/v1/rollouts/"+g.Rollout.ID, e.opToken, nil).decode(t, &v)
	if len(v.Calls) != 2 {
		t.Fatalf("calls: %+v", v.Calls)
	}
	c1, c2 := v.Calls[0], v.Calls[1]
	if c1.Prompt != canonicalSHA256(json.RawMessage(`[{"content":"hi","role":"user"}]`)) || c1.Prompt == c2.Prompt {
		t.Fatalf("rendered-prompt digest: %s %s", c1.Prompt, c2.Prompt)
	}
	if c1.Tools == "" || c1.Tools != c2.Tools || c1.Tools != canonicalSHA256(json.RawMessage(tools)) {
		t.Fatalf("tool-schema digest: %q %q", c1.Tools, c2.Tools)
	}
	if string(c1.Sampling) != `{"seed":7,"temperature":0.2}` {
		t.Fatalf("sampling params: %s", c1.Sampling)
	}
	if string(c1.Emitted) != `["call_1"]` || string(c2.Results) != `["call_1"]` || string(c1.Results) != `[]` {
		t.Fatalf("tool_call_id join: emitted %s, answered %s / %s", c1.Emitted, c1.Results, c2.Results)
	}
	if v.EmittedBy["call_1"] != c1.ID {
		t.Fatalf("call_1 emitted by %q, want %s", v.EmittedBy["call_1"], c1.ID)
	}
	if string(v.Output.Landed) != `[true,false,null]` {
		t.Fatalf("tri-state: %s", v.Output.Landed)
	}
	turn := turnBody("tri", map[string]any{"tool_calls": []any{call(nil), call(map[string]any{"outcome": "unknown", "status_code": null{}})}})
	if r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, []byte(turn)); r.Status != http.StatusAccepted {
		t.Fatalf("turn: %d %s", r.Status, r.Body)
	}
	var tv struct {
		Landed json.RawMessage `json:"tool_call_landed"`
	}
	e.do(http.MethodGet, "/operator/v1/turns/tri/t1", e.opToken, nil).decode(t, &tv)
	if string(tv.Landed) != `[true,null]` {
		t.Fatalf("turn tri-state: %s", tv.Landed)
	}
}

func TestEmittedToolCallIDs_ReadsAStreamedCompletion(t *testing.T) {
	t.Parallel()
	sse := "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\"}]}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\"}]}}]}\n\ndata: [DONE]\n\n"
	if got := emittedToolCallIDs([]byte(sse)); got == nil || *got != `["call_a","call_b"]` {
		t.Fatalf("streamed ids: %v", got)
	}
}
