package flywheel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// turnBody renders a batch of one turn whose fields are overridden by
// edits (a nil value deletes the key).
func turnBody(agentID any, edits map[string]any) string {
	turn := map[string]any{"turn_id": "t1", "input_text": "hi", "final_text": "ok", "tool_calls": []any{}, "tool_calls_omitted_count": 0}
	for k, v := range edits {
		if v == nil {
			delete(turn, k)
		} else {
			turn[k] = v
		}
	}
	batch := map[string]any{"turns": []any{turn}}
	if agentID != nil {
		batch["agent_id"] = agentID
	}
	b, _ := json.Marshal(batch)
	return string(b)
}

type null struct{}

func (null) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

func call(edits map[string]any) map[string]any {
	c := map[string]any{"name": "search", "outcome": "ok", "status_code": 200}
	for k, v := range edits {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func TestTurns_EverySchemaRule(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	many := func(n int) string {
		turns := make([]string, n)
		for i := range turns {
			turns[i] = fmt.Sprintf(`{"turn_id":"m%d","input_text":null,"final_text":null,"tool_calls":null,"tool_calls_omitted_count":0}`, i)
		}
		return `{"agent_id":"many` + fmt.Sprint(n) + `","turns":[` + strings.Join(turns, ",") + `]}`
	}
	cases := []struct {
		name   string
		body   string
		status int
		path   string // a violation expected at this JSON pointer (422)
	}{
		{"valid minimal turn", turnBody("a", nil), 202, ""},
		{"malformed JSON is 400", `{"agent_id":`, 400, ""},
		{"agent_id required", turnBody(nil, nil), 422, ""},
		{"agent_id dot segment", turnBody(".", nil), 422, "/agent_id"},
		{"agent_id dot-dot segment", turnBody("..", nil), 422, "/agent_id"},
		{"agent_id three dots is legal", turnBody("...", map[string]any{"turn_id": "t-3dots"}), 202, ""},
		{"agent_id slash", turnBody("a/b", nil), 422, "/agent_id"},
		{"agent_id backslash", turnBody(`a\b`, nil), 422, "/agent_id"},
		{"agent_id leading space", turnBody(" a", nil), 422, "/agent_id"},
		{"agent_id trailing space", turnBody("a ", nil), 422, "/agent_id"},
		{"agent_id C0 control", turnBody("a\x01b", nil), 422, "/agent_id"},
		{"agent_id C1 control", turnBody("a\u0085b", nil), 422, "/agent_id"},
		{"agent_id empty", turnBody("", nil), 422, "/agent_id"},
		{"agent_id too long", turnBody(strings.Repeat("x", 256), nil), 422, "/agent_id"},
		{"agent_id unicode is legal", turnBody("agent-ß-東京", map[string]any{"turn_id": "uni"}), 202, ""},
		{"turn_id dot segment", turnBody("a", map[string]any{"turn_id": "."}), 422, "/turns/0/turn_id"},
		{"turn_id dot-dot", turnBody("a", map[string]any{"turn_id": ".."}), 422, "/turns/0/turn_id"},
		{"turn_id slash", turnBody("a", map[string]any{"turn_id": "x/y"}), 422, "/turns/0/turn_id"},
		{"turn_id inner space is legal", turnBody("a", map[string]any{"turn_id": "x y"}), 202, ""},
		{"turn_id trailing tab", turnBody("a", map[string]any{"turn_id": "x\t"}), 422, "/turns/0/turn_id"},
		{"turn_id required", turnBody("a", map[string]any{"turn_id": nil}), 422, "/turns/0"},
		{"task_id may hold a slash", turnBody("a", map[string]any{"turn_id": "task-slash", "task_id": "case/42"}), 202, ""},
		{"task_id leading space", turnBody("a", map[string]any{"task_id": " 42"}), 422, "/turns/0/task_id"},
		{"task_id empty", turnBody("a", map[string]any{"task_id": ""}), 422, "/turns/0/task_id"},
		{"conversation_id control char", turnBody("a", map[string]any{"conversation_id": "c\x7f"}), 422, "/turns/0/conversation_id"},
		{"turns empty", `{"agent_id":"a","turns":[]}`, 422, "/turns"},
		{"64 turns is the maximum", many(64), 202, ""},
		{"65 turns is too many", many(65), 422, "/turns"},
		{"unknown batch field", `{"agent_id":"a","turns":[],"extra":1}`, 422, ""},
		{"unknown turn field", turnBody("a", map[string]any{"reward": 1}), 422, "/turns/0"},
		{"tool_calls required", turnBody("a", map[string]any{"tool_calls": nil}), 422, "/turns/0"},
		{"tool_calls null is legal", turnBody("a", map[string]any{"turn_id": "null-calls", "tool_calls": null{}}), 202, ""},
		{"tool_calls_omitted_count required", turnBody("a", map[string]any{"tool_calls_omitted_count": nil}), 422, "/turns/0"},
		{"tool_calls_omitted_count negative", turnBody("a", map[string]any{"tool_calls_omitted_count": -1}), 422, "/turns/0/tool_calls_omitted_count"},
		{"tool_calls_omitted_count fractional", turnBody("a", map[string]any{"tool_calls_omitted_count": 1.5}), 422, "/turns/0/tool_calls_omitted_count"},
		{"turn_index negative", turnBody("a", map[string]any{"turn_index": -1}), 422, "/turns/0/turn_index"},
		{"turn_index beyond 64 bits", strings.Replace(turnBody("a", map[string]any{"turn_index": 7}), `"turn_index":7`, `"turn_index":1e30`, 1), 422, "/turns/0/turn_index"},
		{"input_text wrong type", turnBody("a", map[string]any{"input_text": 5}), 422, "/turns/0/input_text"},
		{"occurred_at not a date-time", turnBody("a", map[string]any{"occurred_at": "yesterday"}), 422, "/turns/0/occurred_at"},
		{"occurred_at RFC 3339", turnBody("a", map[string]any{"turn_id": "dated", "occurred_at": "2026-11-29T12:00:00Z"}), 202, ""},
		{"agent_fingerprint must be an object", turnBody("a", map[string]any{"agent_fingerprint": "v1"}), 422, "/turns/0/agent_fingerprint"},
		{"unknown outcome with status null is legal", turnBody("a", map[string]any{"turn_id": "unk", "tool_calls": []any{call(map[string]any{"outcome": "unknown", "status_code": null{}})}}), 202, ""},
		{"unknown outcome with a status is refused", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"outcome": "unknown", "status_code": 200})}}), 422, "/turns/0/tool_calls/0/status_code"},
		{"failed outcome with a status is legal", turnBody("a", map[string]any{"turn_id": "failed", "tool_calls": []any{call(map[string]any{"outcome": "failed", "status_code": 500})}}), 202, ""},
		{"outcome outside the vocabulary", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"outcome": "success"})}}), 422, "/turns/0/tool_calls/0/outcome"},
		{"outcome required", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"outcome": nil})}}), 422, "/turns/0/tool_calls/0"},
		{"status_code key required", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"status_code": nil})}}), 422, "/turns/0/tool_calls/0"},
		{"status_code below 100", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"status_code": 99})}}), 422, "/turns/0/tool_calls/0/status_code"},
		{"status_code above 599", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"status_code": 600})}}), 422, "/turns/0/tool_calls/0/status_code"},
		{"tool name empty", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"name": ""})}}), 422, "/turns/0/tool_calls/0/name"},
		{"unknown tool call field", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"verdict": "ok"})}}), 422, "/turns/0/tool_calls/0"},
		{"latency negative", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"latency_ms": -1})}}), 422, "/turns/0/tool_calls/0/latency_ms"},
		{"arguments must be an object", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"arguments": "q=1"})}}), 422, "/turns/0/tool_calls/0/arguments"},
		{"entity_ids high-entropy names only", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"entity_ids": map[string]any{"email": "x@y"}})}}), 422, ""},
		{"entity_ids value non-empty", turnBody("a", map[string]any{"tool_calls": []any{call(map[string]any{"entity_ids": map[string]any{"id": ""}})}}), 422, "/turns/0/tool_calls/0/entity_ids/id"},
		{"entity_ids legal", turnBody("a", map[string]any{"turn_id": "ent", "tool_calls": []any{call(map[string]any{"entity_ids": map[string]any{"uuid": "0f8e", "gid": "g1"}, "tool_call_id": "call_1", "agent_name": null{}})}}), 202, ""},
	}
	for _, tc := range cases {
		r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, []byte(tc.body))
		if r.Status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, r.Status, tc.status, r.Body)
			continue
		}
		if tc.status == 422 && tc.path != "" && !hasViolationAt(t, r, tc.path) {
			t.Errorf("%s: no violation at %q: %s", tc.name, tc.path, r.Body)
		}
	}
}

func TestTurns_RejectedBatchStoresNothing(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	body := `{"agent_id":"a","turns":[{"turn_id":"good","input_text":null,"final_text":null,"tool_calls":null,"tool_calls_omitted_count":0},` +
		`{"turn_id":"..","input_text":null,"final_text":null,"tool_calls":null,"tool_calls_omitted_count":0}]}`
	if r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, []byte(body)); r.Status != 422 || !hasViolationAt(t, r, "/turns/1/turn_id") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if r := e.do(http.MethodGet, "/operator/v1/turns/a/good", e.opToken, nil); r.Status != 404 {
		t.Fatalf("a rejected batch stored a turn: %d %s", r.Status, r.Body)
	}
}

func TestTurns_ReplayIsIdempotentAndNullStaysApartFromEmpty(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	body := `{"agent_id":"a","turns":[{"turn_id":"n","input_text":"q","final_text":"a","tool_calls":null,"tool_calls_omitted_count":0},` +
		`{"turn_id":"e","input_text":"q","final_text":"a","tool_calls":[],"tool_calls_omitted_count":0}]}`
	for i, want := range []string{`{"accepted":2,"duplicates":0}`, `{"accepted":0,"duplicates":2}`} {
		r := e.do(http.MethodPost, "/flywheel/turns", e.agentKey, []byte(body))
		if r.Status != 202 || string(r.Body) != want {
			t.Fatalf("post %d: %d %s, want %s", i, r.Status, r.Body, want)
		}
	}
	for id, want := range map[string]string{"n": "null", "e": "[]"} {
		var got struct {
			ToolCalls json.RawMessage `json:"tool_calls"`
		}
		e.do(http.MethodGet, "/operator/v1/turns/a/"+id, e.opToken, nil).decode(t, &got)
		if string(got.ToolCalls) != want {
			t.Fatalf("turn %s tool_calls read back %s, want %s", id, got.ToolCalls, want)
		}
	}
	if r := e.do(http.MethodPost, "/flywheel/turns", "", []byte(body)); r.Status != 401 {
		t.Fatalf("no key: %d", r.Status)
	}
	if r := e.do(http.MethodPost, "/flywheel/turns", e.opToken, []byte(body)); r.Status != 403 {
		t.Fatalf("operator token: %d", r.Status)
	}
}
