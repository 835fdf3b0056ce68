package rest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gatehouse/gatehouse/internal/telemetry"
)

// A tool handler that panics answers the caller a typed internal error,
// is counted, and the server keeps serving the next call.
func TestRecoverTool_APanickingHandlerAnswersAnInternalErrorAndTheServerLivesOn(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	internal := func() *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: `{"error":{"code":"internal"}}`}}}
	}
	schema := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&mcp.Tool{Name: "explode", InputSchema: schema}, RecoverTool(slog.New(slog.DiscardHandler), "/mcp/test", "explode",
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") }, internal))
	srv.AddTool(&mcp.Tool{Name: "fine", InputSchema: schema}, RecoverTool(nil, "/mcp/test", "fine",
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		}, internal))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewServer(h)
	defer ts.Close()

	before := counterValue(t, "/mcp/test", "explode")
	ctx := context.Background()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sess.Close() }()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "explode", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"internal"`) {
		t.Fatalf("panicking tool answered %+v, %v; want the internal error result", res, err)
	}
	if after := counterValue(t, "/mcp/test", "explode"); after != before+1 {
		t.Fatalf("gatehouse_mcp_tool_panics_total went %v -> %v", before, after)
	}
	res, err = sess.CallTool(ctx, &mcp.CallToolParams{Name: "fine", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("the next call after a panic: %+v, %v", res, err)
	}
}

func counterValue(t *testing.T, endpoint, tool string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(telemetry.MCPToolPanics)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["endpoint"] == endpoint && labels["tool"] == tool {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
