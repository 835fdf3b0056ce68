package mcpdirect

import (
	"encoding/json"
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answer is what goes back for one call: a status, a content type and a
// body.
type answer struct {
	status      int
	contentType string
	body        []byte
}

// answerFor is the SDK's answer to call given the handler's result and
// error: a server-sent "message" event holding the JSON-RPC response, or,
// for the protocol-level errors SEP-2575 maps to a status, that response
// alone as JSON.
func answerFor(call *plainCall, server *mcp.Implementation, res *mcp.CallToolResult, err error) answer {
	if err != nil {
		msg, status := errorResponse(call, err)
		if status != 0 {
			return answer{status: status, contentType: "application/json", body: msg}
		}
		return answer{status: http.StatusOK, contentType: "text/event-stream", body: frameEvent(nil, msg)}
	}
	return answer{status: http.StatusOK, contentType: "text/event-stream", body: resultEvent(call, server, res)}
}

// eventPrefix and eventSuffix frame a message as the SDK's server-sent
// event.
const eventPrefix, eventSuffix = "event: message\ndata: ", "\n\n"

// frameEvent appends msg to out as the SDK's server-sent event.
func frameEvent(out, msg []byte) []byte {
	out = append(out, eventPrefix...)
	out = append(out, msg...)
	return append(out, eventSuffix...)
}

// resultEvent is the event carrying the JSON-RPC response with res,
// written into one buffer sized for it (frameEvent would copy the
// message once more). The common result (one text content, structured
// content already encoded, no _meta) is written directly; any other is
// encoded by the SDK's own MarshalJSON. A new-protocol result ends with
// the resultType the SDK adds, which no handler's result carries.
func resultEvent(call *plainCall, server *mcp.Implementation, res *mcp.CallToolResult) []byte {
	text, structured, common := commonResult(res)
	// Escaping rarely adds more than a fifth to a JSON text.
	out := make([]byte, 0, 256+len(text)+len(text)/5+len(structured))
	out = append(out, eventPrefix+`{"jsonrpc":"2.0","id":`...)
	out = append(out, call.id...)
	out = append(out, `,"result":`...)
	if common {
		out = appendCommonResult(out, call, server, res.IsError, text, structured)
	} else {
		out = append(out, otherResult(call, server, res)...)
	}
	if call.newProtocol && out[len(out)-1] == '}' {
		out = append(out[:len(out)-1], `,"resultType":"complete"}`...)
	}
	return append(out, "}"+eventSuffix...)
}

// commonResult splits res into its text and its encoded structured
// content when it has that shape, and the text is valid UTF-8 (the SDK
// would replace invalid bytes).
func commonResult(res *mcp.CallToolResult) (string, json.RawMessage, bool) {
	if res == nil || res.Meta != nil || len(res.Content) != 1 || res.InputRequests != nil || res.RequestState != "" {
		return "", nil, false
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	structured, isRaw := res.StructuredContent.(json.RawMessage)
	if !ok || text.Meta != nil || text.Annotations != nil || !utf8.ValidString(text.Text) ||
		(!isRaw && res.StructuredContent != nil) || (isRaw && !json.Valid(structured)) {
		return "", nil, false
	}
	return text.Text, structured, true
}

func appendCommonResult(out []byte, call *plainCall, server *mcp.Implementation, isError bool, text string, structured json.RawMessage) []byte {
	out = append(out, '{')
	if call.newProtocol {
		info, _ := json.Marshal(server)
		out = append(out, `"_meta":{"`+mcp.MetaKeyServerInfo+`":`...)
		out = append(append(out, info...), "},"...)
	}
	out = append(out, `"content":[{"type":"text","text":`...)
	out = appendString(out, text)
	out = append(out, "}]"...)
	if len(structured) > 0 {
		out = append(out, `,"structuredContent":`...)
		out = append(out, structured...)
	}
	if isError {
		out = append(out, `,"isError":true`...)
	}
	return append(out, '}')
}

// otherResult encodes any other result as the SDK does: content never
// null, and in the new protocol the server's info added.
func otherResult(call *plainCall, server *mcp.Implementation, res *mcp.CallToolResult) []byte {
	if res == nil {
		return []byte("null")
	}
	copied := *res
	if copied.Content == nil {
		copied.Content = []mcp.Content{}
	}
	if call.newProtocol {
		meta := mcp.Meta{}
		for k, v := range copied.Meta {
			meta[k] = v
		}
		if _, named := meta[mcp.MetaKeyServerInfo]; !named {
			meta[mcp.MetaKeyServerInfo] = server
		}
		copied.Meta = meta
	}
	raw, err := json.Marshal(&copied)
	if err != nil {
		return []byte("null")
	}
	return raw
}

// errorResponse is the JSON-RPC error response for a handler's error, as
// the SDK writes it, and the status SEP-2575 gives it (0: none, so it
// travels as an event).
func errorResponse(call *plainCall, err error) ([]byte, int) {
	wire := struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}{Message: err.Error()}
	var rpc *jsonrpc.Error
	status := 0
	if errors.As(err, &rpc) {
		// The message stays err's own, as the SDK keeps a wrapping error's.
		wire.Code, wire.Data = rpc.Code, rpc.Data
		if call.newProtocol {
			status = errorStatus(rpc.Code)
		}
	}
	enc, _ := json.Marshal(wire)
	out := append([]byte(`{"jsonrpc":"2.0","id":`), call.id...)
	out = append(out, `,"error":`...)
	out = append(out, enc...)
	return append(out, '}'), status
}

// errorStatus is the status SEP-2575 gives a protocol-level error code.
func errorStatus(code int64) int {
	switch code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}
