package mcpdirect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkHandler_ToolCall times one tools/call whose result is a 50 KB
// JSON document sent as text and as structured content (the size of a
// find_fly_circuits result), answered by the SDK alone and by the direct
// handler, for a legacy (2025-11-25) and a new-protocol (2026-07-28) call.
//
//	go test -run '^$' -bench Handler_ToolCall -benchmem ./internal/mcpdirect
func BenchmarkHandler_ToolCall(b *testing.B) {
	doc := largeResult(50 << 10)
	tools := map[string]mcp.ToolHandler{"find": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: doc}}, StructuredContent: json.RawMessage(doc)}, nil
	}}
	impl := &mcp.Implementation{Name: "bench", Version: "1"}
	srv := mcp.NewServer(impl, nil)
	srv.AddTool(&mcp.Tool{Name: "find", InputSchema: json.RawMessage(`{"type":"object"}`)}, tools["find"])
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true})
	handlers := map[string]http.Handler{"sdk": sdk, "direct": &Handler{Server: impl, Tools: tools, SDK: sdk}}
	for _, protocol := range []string{"2025-11-25", newProtocol} {
		x := exchange{headers: protocolHeaders(protocol, "find"), body: callBody("1", "find", `{"query":"backward walking"}`, protocol)}
		for _, name := range []string{"sdk", "direct"} {
			b.Run(fmt.Sprintf("%s/%s", protocol, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					rec := httptest.NewRecorder()
					handlers[name].ServeHTTP(rec, newRequest(x))
					if rec.Code != http.StatusOK || rec.Body.Len() < 2*len(doc) {
						b.Fatalf("%d %d bytes", rec.Code, rec.Body.Len())
					}
				}
			})
		}
	}
}

// largeResult is a JSON object of about size bytes shaped like a search
// result: records with quoted strings, numbers and nested lists.
func largeResult(size int) string {
	var recs []map[string]any
	for n := 0; ; n++ {
		recs = append(recs, map[string]any{"circuit_id": fmt.Sprintf("circuit-%03d", n), "score": 0.5 + float64(n)/1000,
			"evidence":   []any{map[string]any{"source": "doi:10.7554/eLife.00000", "quote": `MDN "moonwalker" neurons drive backward walking`}},
			"provenance": "literature_curated"})
		if raw, _ := json.Marshal(map[string]any{"circuits": recs}); len(raw) >= size {
			return string(raw)
		}
	}
}
