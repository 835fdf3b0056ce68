package mcpdirect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// trickyText has every kind of character a JSON string must or may
// escape, and the identical JSON is the structured content.
const trickyText = `{"q":"say \"hi\"\\ now","nl":"a\nb\r\tc\u0001","html":"<b>&amp;</b>","u":"é ✓ 🪰 \u2028\u2029","n":1.5e3}`

// testServer is an SDK server over a few tools whose results take every
// path the encoder has, with the direct handler in front of it.
type testServer struct {
	impl   *mcp.Implementation
	tools  map[string]mcp.ToolHandler
	sdk    http.Handler
	direct *Handler
	// sessions records, per call, whether the tool ran in an SDK session:
	// a call without one was answered by the direct handler.
	mu       sync.Mutex
	sessions []bool
}

// answeredDirectly is how many tool calls ran without an SDK session.
func (ts *testServer) answeredDirectly() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := 0
	for _, inSession := range ts.sessions {
		if !inSession {
			n++
		}
	}
	return n
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	ts := &testServer{impl: &mcp.Implementation{Name: "test-server", Title: "Test", Version: "7"}}
	record := func(req *mcp.CallToolRequest) {
		ts.mu.Lock()
		ts.sessions = append(ts.sessions, req.Session != nil)
		ts.mu.Unlock()
	}
	ts.tools = map[string]mcp.ToolHandler{
		"echo": func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			text := trickyText
			if args := string(req.Params.Arguments); args != "" && args != "{}" {
				text = strings.Replace(trickyText, `"n":1.5e3`, `"args":`+args, 1)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(text)}, nil
		},
		"refused": func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"ok":false}`}},
				StructuredContent: json.RawMessage(`{"ok":false}`), IsError: true}, nil
		},
		"broken": func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			return nil, errors.New("tool broke: <details>")
		},
		"invalid": func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad arguments"}
		},
		"other": func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			return &mcp.CallToolResult{Meta: mcp.Meta{"x": 1.0},
				Content:           []mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two"}},
				StructuredContent: map[string]any{"k": []any{"v", 2.0}}}, nil
		},
		"empty": func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			return &mcp.CallToolResult{}, nil
		},
		"progress": func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}, StructuredContent: json.RawMessage("{}")}, nil
		},
	}
	srv := mcp.NewServer(ts.impl, nil)
	for name, h := range ts.tools {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	}
	ts.sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true})
	ts.direct = &Handler{Server: ts.impl, Tools: ts.tools, SDK: ts.sdk}
	return ts
}

// exchange is one request as the test sends it.
type exchange struct {
	method  string
	headers map[string]string
	body    string
}

// reply is what came back, with the JSON-RPC message decoded.
type reply struct {
	status      int
	contentType string
	message     any
	raw         string
}

// newRequest is x as an MCP client sends it: a POST (unless x says
// otherwise) of JSON accepting JSON and events, with x's headers on top
// (an empty value removes one).
func newRequest(x exchange) *http.Request {
	method := x.method
	if method == "" {
		method = http.MethodPost
	}
	req := httptest.NewRequest(method, "/mcp", strings.NewReader(x.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range x.headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return req
}

func (ts *testServer) send(t testing.TB, h http.Handler, x exchange) reply {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(x))
	out := reply{status: rec.Code, contentType: rec.Header().Get("Content-Type"), raw: rec.Body.String()}
	data := rec.Body.Bytes()
	if out.contentType == "text/event-stream" {
		data = lastEventData(t, rec.Body.String())
	}
	if json.Valid(data) && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &out.message); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// lastEventData is the data of the last "message" event in an event
// stream; it fails on any other framing.
func lastEventData(t testing.TB, stream string) []byte {
	t.Helper()
	var data []byte
	for _, ev := range strings.Split(strings.TrimSuffix(stream, "\n\n"), "\n\n") {
		lines := strings.Split(ev, "\n")
		if len(lines) != 2 || lines[0] != "event: message" || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("unexpected event framing: %q", ev)
		}
		data = []byte(strings.TrimPrefix(lines[1], "data: "))
	}
	return data
}

// callBody is a tools/call of name with id, in the given protocol.
func callBody(id, name, args, protocol string) string {
	params := fmt.Sprintf(`"name":%q`, name)
	if args != "" {
		params += `,"arguments":` + args
	}
	if protocol == newProtocol {
		params += `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{%s}}`, id, params)
}

func protocolHeaders(protocol, name string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": protocol}
	if protocol == newProtocol {
		h["Mcp-Method"], h["Mcp-Name"] = "tools/call", name
	}
	return h
}

// TestHandler_AnswersPlainCallsAsTheSDKDoes sends every tool, under every
// protocol version and both kinds of id, to the SDK alone and through the
// direct handler, and requires the same status, content type and
// JSON-RPC message, with the direct handler (not the SDK) answering.
func TestHandler_AnswersPlainCallsAsTheSDKDoes(t *testing.T) {
	ts := newTestServer(t)
	for _, protocol := range []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", newProtocol} {
		for _, tool := range []string{"echo", "refused", "broken", "invalid", "other", "empty", "progress"} {
			for _, id := range []string{`7`, `-3`, `"abc\u00e9\"x"`, `9007199254740992`} {
				for _, args := range []string{"", `{}`, `{"a":[1,"<\"b\">"]}`} {
					x := exchange{headers: protocolHeaders(protocol, tool), body: callBody(id, tool, args, protocol)}
					name := fmt.Sprintf("%s/%s/id=%s/args=%s", protocol, tool, id, args)
					before := ts.answeredDirectly()
					want, got := ts.send(t, ts.sdk, x), ts.send(t, ts.direct, x)
					if ts.answeredDirectly() != before+1 {
						t.Fatalf("%s: the direct handler did not answer", name)
					}
					if want.message == nil {
						t.Fatalf("%s: the SDK's answer is no JSON-RPC message: %d %q", name, want.status, want.raw)
					}
					if got.status != want.status || got.contentType != want.contentType || !reflect.DeepEqual(got.message, want.message) {
						t.Fatalf("%s:\n got %d %s %s\nwant %d %s %s", name, got.status, got.contentType, got.raw, want.status, want.contentType, want.raw)
					}
				}
			}
		}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for i, inSession := range ts.sessions {
		if inSession != (i%2 == 0) {
			t.Fatalf("call %d: ran in an SDK session = %v; the SDK's calls alternate with the direct ones", i, inSession)
		}
	}
}

// TestHandler_LeavesEveryOtherRequestToTheSDK sends requests that are not
// plain calls: each must reach the SDK with its body intact, so the answer
// is the SDK's own.
func TestHandler_LeavesEveryOtherRequestToTheSDK(t *testing.T) {
	ts := newTestServer(t)
	legacy := protocolHeaders("2025-11-25", "echo")
	cases := map[string]exchange{
		"batch":                {headers: protocolHeaders("2025-03-26", ""), body: "[" + callBody("1", "echo", "", "") + "]"},
		"notification":         {body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		"tools/list":           {headers: legacy, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		"unknown tool":         {headers: legacy, body: callBody("1", "nope", "", "")},
		"progress token":       {headers: legacy, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p1"}}}`},
		"name in another case": {headers: legacy, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"echo"}}`},
		"duplicate name":       {headers: legacy, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"broken"}}`},
		"duplicate id":         {headers: legacy, body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"echo"}}`},
		"extra member":         {headers: legacy, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"x":1}`},
		"null id":              {headers: legacy, body: `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo"}}`},
		"fractional id":        {headers: legacy, body: callBody("1.5", "echo", "", "")},
		"huge id":              {headers: legacy, body: callBody("9007199254740993", "echo", "", "")},
		"array arguments":      {headers: legacy, body: callBody("1", "echo", "[1]", "")},
		"trailing data":        {headers: legacy, body: callBody("1", "echo", "", "") + "{}"},
		"jsonrpc 1.0":          {headers: legacy, body: strings.Replace(callBody("1", "echo", "", ""), "2.0", "1.0", 1)},
		"unknown version":      {headers: protocolHeaders("2099-01-01", "echo"), body: callBody("1", "echo", "", "")},
		"resuming":             {headers: map[string]string{"Last-Event-ID": "x_1"}, body: callBody("1", "echo", "", "")},
		"accepts json only":    {headers: map[string]string{"Accept": "application/json"}, body: callBody("1", "echo", "", "")},
		"text body":            {headers: map[string]string{"Content-Type": "text/plain"}, body: callBody("1", "echo", "", "")},
		"param header":         {headers: map[string]string{"Mcp-Param-X": "1"}, body: callBody("1", "echo", "", "")},
		"get":                  {method: http.MethodGet},
		"new without capabilities": {headers: protocolHeaders(newProtocol, "echo"),
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		"new with another meta version": {headers: protocolHeaders(newProtocol, "echo"),
			body: strings.Replace(callBody("1", "echo", "", newProtocol), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/protocolVersion":"2025-11-25"`, 1)},
		"new with progress": {headers: protocolHeaders(newProtocol, "progress"),
			body: strings.Replace(callBody("1", "progress", "", newProtocol), `"_meta":{`, `"_meta":{"progressToken":3,`, 1)},
		"new with a log level": {headers: protocolHeaders(newProtocol, "echo"),
			body: strings.Replace(callBody("1", "echo", "", newProtocol), `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"debug",`, 1)},
		"new with a mismatched name": {headers: protocolHeaders(newProtocol, "refused"), body: callBody("1", "echo", "", newProtocol)},
		"new without method header": {headers: map[string]string{"Mcp-Protocol-Version": newProtocol},
			body: callBody("1", "echo", "", newProtocol)},
		"legacy call naming the new version in meta": {headers: legacy,
			body: callBody("1", "echo", "", newProtocol)},
	}
	for name, x := range cases {
		t.Run(name, func(t *testing.T) {
			before := ts.answeredDirectly()
			want, got := ts.send(t, ts.sdk, x), ts.send(t, ts.direct, x)
			if ts.answeredDirectly() != before {
				t.Fatal("the direct handler answered a request it should leave to the SDK")
			}
			if got.status != want.status || got.contentType != want.contentType || !reflect.DeepEqual(got.message, want.message) ||
				(want.message == nil && got.raw != want.raw) {
				t.Fatalf("got %d %s %q\nwant %d %s %q", got.status, got.contentType, got.raw, want.status, want.contentType, want.raw)
			}
		})
	}
}

// TestHandler_ServesTheSDKClient connects the SDK's own client through
// the direct handler: its plain calls are answered here, intact.
func TestHandler_ServesTheSDKClient(t *testing.T) {
	ts := newTestServer(t)
	srv := httptest.NewServer(ts.direct)
	defer srv.Close()
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	sess, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sess.Close() }()
	before := ts.answeredDirectly()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if ts.answeredDirectly() != before+1 {
		t.Fatal("the SDK client's tools/call was not answered by the direct handler")
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != trickyText {
		t.Fatalf("text = %q, want %q", text, trickyText)
	}
	var want any
	_ = json.Unmarshal([]byte(trickyText), &want)
	if !reflect.DeepEqual(res.StructuredContent, want) {
		t.Fatalf("structuredContent = %v, want %v", res.StructuredContent, want)
	}
}

// TestHandler_ProgressStillReachesTheCaller asks for progress on a legacy
// call, as the TypeScript client does: the SDK answers it, in a session,
// and the notification travels on the call's own stream before the result.
func TestHandler_ProgressStillReachesTheCaller(t *testing.T) {
	ts := newTestServer(t)
	x := exchange{headers: protocolHeaders("2025-11-25", "progress"),
		body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p1"}}}`}
	got := ts.send(t, ts.direct, x)
	if ts.answeredDirectly() != 0 {
		t.Fatal("the direct handler answered a call that asked for progress")
	}
	progress := strings.Index(got.raw, `"method":"notifications/progress"`)
	result := strings.Index(got.raw, `"result":`)
	if progress < 0 || result < progress {
		t.Fatalf("want a progress notification before the result, got %q", got.raw)
	}
}

// FuzzHandler_AgreesWithTheSDK sends any body under any protocol version
// to the SDK alone and through the direct handler: whoever answers, the
// answers must be the same.
func FuzzHandler_AgreesWithTheSDK(f *testing.F) {
	protocols := []string{"", "2025-03-26", "2025-11-25", newProtocol, "2099-01-01"}
	for i, p := range protocols {
		f.Add(callBody("1", "echo", `{"a":"\"x\""}`, p), uint8(i))
		f.Add(callBody(`"s"`, "refused", "", p), uint8(i))
		f.Add(callBody("2", "invalid", `{}`, p), uint8(i))
	}
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":1}}}`, uint8(2))
	f.Add(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}]`, uint8(1))
	ts := newTestServer(f)
	f.Fuzz(func(t *testing.T, body string, protocol uint8) {
		p := protocols[int(protocol)%len(protocols)]
		x := exchange{headers: protocolHeaders(p, "echo"), body: body}
		want, got := ts.send(t, ts.sdk, x), ts.send(t, ts.direct, x)
		ts.mu.Lock()
		ts.sessions = ts.sessions[:0]
		ts.mu.Unlock()
		if got.status != want.status || got.contentType != want.contentType || !reflect.DeepEqual(got.message, want.message) ||
			(want.message == nil && got.raw != want.raw) {
			t.Fatalf("body %q under %q:\n got %d %s %q\nwant %d %s %q", body, p, got.status, got.contentType, got.raw, want.status, want.contentType, want.raw)
		}
	})
}
