package telemetry

import "github.com/prometheus/client_golang/prometheus"

// MCPToolPanics counts MCP tool calls whose handler panicked, by endpoint
// and tool (answered as an internal error; the process lives on). Every
// registry New builds exports it.
var MCPToolPanics = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "gatehouse_mcp_tool_panics_total",
	Help: "MCP tool calls whose handler panicked (answered as an internal error), by endpoint and tool.",
}, []string{"endpoint", "tool"})
