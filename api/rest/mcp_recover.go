package rest

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse/gatehouse/internal/telemetry"
)

// RecoverTool wraps an MCP tool handler, which the SDK runs outside Gin's
// Recover: a panic is logged with its stack, counted in
// gatehouse_mcp_tool_panics_total and answered with internalError(), so
// one bad call never takes the api process (and every caller on it) down.
// Every call is counted by outcome in gatehouse_mcp_tool_calls_total and
// timed in gatehouse_mcp_tool_call_duration_seconds.
func RecoverTool(log *slog.Logger, endpoint, tool string, h mcp.ToolHandler, internalError func() *mcp.CallToolResult) mcp.ToolHandler {
	if log == nil {
		log = slog.Default()
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		start := time.Now()
		outcome := "panic"
		defer func() {
			if r := recover(); r != nil {
				log.Error("mcp tool panic", "endpoint", endpoint, "tool", tool, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				telemetry.MCPToolPanics.WithLabelValues(endpoint, tool).Inc()
				res, err = internalError(), nil
			}
			telemetry.MCPToolCalls.WithLabelValues(endpoint, tool, outcome).Inc()
			telemetry.MCPToolDuration.WithLabelValues(endpoint, tool).Observe(time.Since(start).Seconds())
		}()
		res, err = h(ctx, req)
		outcome = "ok"
		if err != nil || (res != nil && res.IsError) {
			outcome = "error"
		}
		return res, err
	}
}
