package flywheel

import (
	"net/http"
	"testing"
	"time"
)

// FuzzTurns: no body crashes the handler or answers outside 202/400/422.
func FuzzTurns(f *testing.F) {
	for _, s := range []string{
		turnBody("a", nil), `{"agent_id":"..","turns":[]}`, `{"agent_id":"a","turns":[{"turn_id":"x","input_text":null,"final_text":null,"tool_calls":[{"name":"t","outcome":"unknown","status_code":200}],"tool_calls_omitted_count":0}]}`,
		`{"agent_id":"a","turns":[{"turn_id":"x","input_text":null,"final_text":null,"tool_calls":null,"tool_calls_omitted_count":1e99,"turn_index":1e400}]}`, `[`, `null`, "\x00",
	} {
		f.Add([]byte(s))
	}
	e := newTestEnv(f, Options{})
	f.Fuzz(func(t *testing.T, body []byte) {
		r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, body)
		switch r.Status {
		case 202, 400, 422:
		default:
			t.Fatalf("status %d for %q: %s", r.Status, body, r.Body)
		}
	})
}

// FuzzOutput: no body crashes the handler or answers outside 200/400/409/422.
func FuzzOutput(f *testing.F) {
	for _, s := range []string{
		`{"final_text":"x"}`, `{"final_text":"x","tool_calls":[{"name":"t","outcome":"ok","status_code":200,"entity_ids":{"id":"1"}}]}`,
		`{"final_text":"x","reward":1e400}`, `{"final_text":"x","llm_call_count":1e30}`, `{"final_text":"x","score":1}`,
		`{"final_text":"x","artifacts":{"a":{"sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","size_bytes":1,"content":"a"}}}`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	e := newTestEnv(f, Options{})
	g := e.lease(24 * time.Hour)
	f.Fuzz(func(t *testing.T, body []byte) {
		r := e.output(g, string(body))
		switch r.Status {
		case 200, 400, 409, 422:
		default:
			t.Fatalf("status %d for %q: %s", r.Status, body, r.Body)
		}
	})
}
