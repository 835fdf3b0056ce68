package telemetry

import "github.com/prometheus/client_golang/prometheus"

// MCPToolCalls counts MCP tool calls by endpoint, tool and outcome (ok,
// error: answered with isError or a protocol error, panic). Every registry
// New builds exports it.
var MCPToolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "gatehouse_mcp_tool_calls_total",
	Help: "MCP tool calls by endpoint, tool and outcome (ok, error, panic).",
}, []string{"endpoint", "tool", "outcome"})

// MCPToolDuration times MCP tool calls by endpoint and tool.
var MCPToolDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name:    "gatehouse_mcp_tool_call_duration_seconds",
	Help:    "MCP tool call latency by endpoint and tool.",
	Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
}, []string{"endpoint", "tool"})
