// Package mcpdirect answers the plain tools/call requests of a stateless
// MCP Streamable HTTP endpoint itself, and hands every other request to
// the SDK's handler unchanged.
//
// The SDK serves each stateless request through a session of its own
// (connection, goroutines, initialisation state) and encodes a result
// three times over: the result, the JSON-RPC response holding it, and the
// message holding that, each pass re-compacting the one before. For a
// FlyLab result of 50 KB sent both as structuredContent and as the
// identical text, that was a third of the api's CPU per call. A plain
// call here is decoded once, run on the same tool handler, and written as
// the one server-sent event the SDK would write.
//
// "Plain" is narrow on purpose: one request (no batch), a tool the server
// has, a string or small integer id, headers the SDK accepts as they are,
// and no progress token (progress needs the SDK's session). Tests compare
// every answer here with the SDK's own for the same request.
package mcpdirect

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler answers plain tools/call requests with Tools and sends the rest
// to SDK.
type Handler struct {
	// Server is the implementation the SDK's server reports, named in
	// every new-protocol result as the SDK names it.
	Server *mcp.Implementation
	// Tools are the handlers the SDK's server runs, by tool name.
	Tools map[string]mcp.ToolHandler
	// SDK is the SDK's stateless Streamable HTTP handler for the same
	// server.
	SDK http.Handler
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	call := parsePlainCall(r, h.Tools)
	if call == nil {
		h.SDK.ServeHTTP(w, r)
		return
	}
	req := &mcp.CallToolRequest{Params: call.params,
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}}
	res, err := h.Tools[call.params.Name](r.Context(), req)
	a := answerFor(call, h.Server, res, err)
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", a.contentType)
	if a.contentType == "text/event-stream" {
		w.Header().Set("Connection", "keep-alive")
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
	_ = http.NewResponseController(w).Flush()
}
