package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/models/platform"
)

// mcpHeader is what a Streamable HTTP client sends with a JSON-RPC message.
func mcpHeader(session string) http.Header {
	h := http.Header{}
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", "2025-06-18")
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
	return h
}

// mcpMessages are the JSON-RPC messages of an MCP answer: the body itself
// (application/json) or the data lines of an event stream.
func mcpMessages(t *testing.T, contentType string, body []byte) []json.RawMessage {
	t.Helper()
	var raw [][]byte
	if strings.HasPrefix(contentType, "text/event-stream") {
		for _, line := range bytes.Split(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				raw = append(raw, bytes.TrimSpace(d))
			}
		}
	} else if len(bytes.TrimSpace(body)) > 0 {
		raw = append(raw, body)
	}
	out := make([]json.RawMessage, 0, len(raw))
	for _, r := range raw {
		if !json.Valid(r) {
			t.Fatalf("MCP answer is not JSON (%s): %q", contentType, body)
		}
		out = append(out, r)
	}
	return out
}

// mcpRefused reports whether a JSON-RPC answer refused the call: a
// JSON-RPC error, a tool result flagged isError, or a FlyLab envelope with
// ok false.
func mcpRefused(msg json.RawMessage) bool {
	var m struct {
		Error  *json.RawMessage `json:"error"`
		Result *struct {
			IsError           bool `json:"isError"`
			StructuredContent *struct {
				OK *bool `json:"ok"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return false
	}
	if m.Error != nil {
		return true
	}
	if m.Result == nil {
		return false
	}
	sc := m.Result.StructuredContent
	return m.Result.IsError || (sc != nil && sc.OK != nil && !*sc.OK)
}

// mcpCall posts body as one JSON-RPC message and checks the answer: no
// 5xx, and an HTTP 4xx or a refused JSON-RPC answer leaves every table as
// it was.
func (f *fuzzServer) mcpCall(t *testing.T, path, token, session string, body []byte) {
	t.Helper()
	before := f.rows(t)
	rec := f.post(path, token, body, mcpHeader(session))
	if rec.Code >= 500 {
		t.Fatalf("POST %s answered %d for %q: %s", path, rec.Code, body, rec.Body)
	}
	refused := rec.Code >= 400
	if !refused {
		for _, m := range mcpMessages(t, rec.Header().Get("Content-Type"), rec.Body.Bytes()) {
			refused = refused || mcpRefused(m)
		}
	}
	if !refused {
		return
	}
	for table, n := range f.rows(t) {
		if n != before[table] {
			t.Fatalf("POST %s refused %q (%d: %.300s) but table %s went from %d to %d rows", path, body, rec.Code, rec.Body, table, before[table], n)
		}
	}
}

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}`

// mcpSeeds are JSON-RPC messages, valid and not, for both MCP endpoints.
var mcpSeeds = []string{
	mcpInitialize,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"find_fly_circuits","arguments":{"page_session_id":"s","expected_state_revision":0,"query":"q"}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"project","arguments":{"action":"create","name":"p"}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"claim.create","arguments":{"project_id":"p","statement":"s"}}}`,
	`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"save_fly_evidence","arguments":[]}}`,
	`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"x"}`,
	`{"jsonrpc":"2.0","id":{},"method":"tools/list"}`,
	`{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`,
	`{`, `null`, ``, "\x00\xff", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + strings.Repeat(`[`, 200) + `}`,
}

// FuzzMCPResearch: no JSON-RPC message makes POST /mcp/research (stateless,
// JSON answers) panic or answer 5xx, and a refused message stores nothing.
// Messages are sent with an agent key scoped to no project, an agent key
// for all projects or an operator key, so tool calls get past the
// project check too.
func FuzzMCPResearch(f *testing.F) {
	for i, s := range mcpSeeds {
		f.Add(uint8(i), []byte(s))
	}
	// An operator creating a project: a call that stores.
	f.Add(uint8(2), []byte(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"project","arguments":{"action":"create","name":"fuzzed"}}}`))
	fs := newDownTemporalFuzzServer(f)
	all, err := platform.Mint(context.Background(), fs.db, platform.MintRequest{Role: platform.RoleAgent, Name: "all", AllProjects: true})
	if err != nil {
		f.Fatal(err)
	}
	tokens := []string{fs.creds.agent, all.Plaintext, fs.creds.operator}
	f.Fuzz(func(t *testing.T, who uint8, body []byte) {
		fs.mcpCall(t, "/mcp/research", tokens[int(who)%len(tokens)], "", body)
	})
}

// FuzzMCPFlyLab: no JSON-RPC message makes POST /mcp/flylab (stateless
// Streamable HTTP, event-stream answers) panic or answer 5xx, and a refused
// message stores nothing. Stateless, every message reaches the method
// handlers with no session; one in four carries an Mcp-Session-Id (one a
// stateful replica might have handed out), which must change nothing.
func FuzzMCPFlyLab(f *testing.F) {
	for i, s := range mcpSeeds {
		f.Add(uint8(i), []byte(s))
	}
	fs := newDownTemporalFuzzServer(f)
	rec := fs.post("/mcp/flylab", fs.creds.agent, []byte(mcpInitialize), mcpHeader(""))
	if rec.Code != http.StatusOK {
		f.Fatalf("initialize answered %d: %s", rec.Code, rec.Body)
	}
	f.Fuzz(func(t *testing.T, mode uint8, body []byte) {
		s := ""
		if mode%4 == 0 {
			s = "stale-session-from-another-replica"
		}
		fs.mcpCall(t, "/mcp/flylab", fs.creds.agent, s, body)
	})
}
