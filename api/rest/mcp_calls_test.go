package rest

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gatehouse/gatehouse/internal/telemetry"
)

func TestRecoverTool_CountsAndTimesEveryCallByOutcome(t *testing.T) {
	internal := func() *mcp.CallToolResult { return &mcp.CallToolResult{IsError: true} }
	handlers := map[string]mcp.ToolHandler{
		"ok": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		},
		"error": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true}, nil
		},
		"protocol": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("unauthenticated")
		},
		"panic": func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") },
	}
	want := map[string]string{"ok": "ok", "error": "error", "protocol": "error", "panic": "panic"}
	for tool, h := range handlers {
		calls := telemetry.MCPToolCalls.WithLabelValues("/mcp/metrics-test", tool, want[tool])
		before := testutil.ToFloat64(calls)
		wrapped := RecoverTool(nil, "/mcp/metrics-test", tool, h, internal)
		_, _ = wrapped(context.Background(), &mcp.CallToolRequest{})
		_, _ = wrapped(context.Background(), &mcp.CallToolRequest{})
		if got := testutil.ToFloat64(calls) - before; got != 2 {
			t.Errorf("%s: %v calls counted as %s, want 2", tool, got, want[tool])
		}
	}
	if n := testutil.CollectAndCount(telemetry.MCPToolDuration, "gatehouse_mcp_tool_call_duration_seconds"); n < len(handlers) {
		t.Fatalf("latency recorded for %d tools, want at least %d", n, len(handlers))
	}
}
