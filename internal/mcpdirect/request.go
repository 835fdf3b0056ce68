package mcpdirect

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newProtocol is the first MCP revision in which a request carries its
// protocol version, client capabilities and client info in _meta
// (SEP-2575), and results say "resultType" and name the server.
const newProtocol = "2026-07-28"

// sdkProtocols are the revisions the SDK negotiates.
var sdkProtocols = mcp.SupportedProtocolVersions()

// legacyProtocol says v is a revision before newProtocol that the SDK
// negotiates, or none ("", which the SDK reads as 2025-03-26); a request
// naming another one is left to the SDK, which refuses it.
func legacyProtocol(v string) bool {
	return v == "" || (v < newProtocol && slices.Contains(sdkProtocols, v))
}

// plainCall is a tools/call this package answers itself.
type plainCall struct {
	// id is the JSON-RPC id as it goes back on the wire.
	id     []byte
	params *mcp.CallToolParamsRaw
	// newProtocol says the result carries resultType and the server's info.
	newProtocol bool
}

// parsePlainCall reads r's body and says whether it is a plain tools/call
// of one of tools: a single request (no batch), exact member names, a
// string or integer id, no progress token, and headers the SDK would
// accept as they are. Anything else is nil, and the body is left for the
// SDK to read again, so every refusal keeps the SDK's own wording.
func parsePlainCall(r *http.Request, tools map[string]mcp.ToolHandler) *plainCall {
	if r.Method != http.MethodPost || r.Body == nil || !plainHeaders(r) {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil || len(body) > maxBodyBytes {
		return nil
	}
	call, _ := decodePlainCall(body, r.Header, tools)
	return call
}

// maxBodyBytes bounds the body read here; a larger call goes to the SDK.
const maxBodyBytes = 1 << 20

// plainHeaders says the request's headers are those of a call the SDK
// answers with an event stream: JSON body, both media types accepted, no
// resumption, no parameter headers, a known protocol version.
func plainHeaders(r *http.Request) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if !acceptsJSONAndStream(r.Header.Values("Accept")) || len(r.Header.Values("Last-Event-ID")) > 0 {
		return false
	}
	for name := range r.Header {
		if strings.HasPrefix(name, "Mcp-Param-") {
			return false
		}
	}
	v := r.Header.Get("Mcp-Protocol-Version")
	if v == newProtocol {
		// The body's tool must match Mcp-Name too (decodePlainCall).
		return r.Header.Get("Mcp-Method") == "tools/call"
	}
	return legacyProtocol(v)
}

// acceptsJSONAndStream reads Accept as the SDK does.
func acceptsJSONAndStream(values []string) bool {
	var jsonOK, streamOK bool
	for _, value := range values {
		for _, token := range strings.Split(value, ",") {
			base, _, _ := strings.Cut(token, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// decodePlainCall checks body against the shape of a plain call under the
// protocol version header names.
func decodePlainCall(body []byte, header http.Header, tools map[string]mcp.ToolHandler) (*plainCall, bool) {
	msg, ok := members(body, "jsonrpc", "id", "method", "params")
	if !ok || string(msg["jsonrpc"]) != `"2.0"` || string(msg["method"]) != `"tools/call"` {
		return nil, false
	}
	id, ok := wireID(msg["id"])
	if !ok {
		return nil, false
	}
	params, ok := members(msg["params"], "name", "arguments", "_meta")
	if !ok {
		return nil, false
	}
	var name string
	if json.Unmarshal(params["name"], &name) != nil || tools[name] == nil {
		return nil, false
	}
	args := params["arguments"]
	if args != nil && firstByte(args) != '{' {
		return nil, false
	}
	call := &plainCall{id: id, params: &mcp.CallToolParamsRaw{Name: name, Arguments: args}}
	meta, hasMeta := params["_meta"]
	switch {
	case header.Get("Mcp-Protocol-Version") == newProtocol:
		m, ok := newProtocolMeta(meta)
		if !ok || header.Get("Mcp-Name") != name {
			return nil, false
		}
		call.params.Meta, call.newProtocol = m, true
	case hasMeta:
		// A legacy call's _meta may ask for progress, which needs the SDK's
		// session; or name a protocol version the header does not.
		return nil, false
	}
	return call, true
}

// newProtocolMeta is a new-protocol call's _meta when it carries exactly
// what SEP-2575 asks (the version, the client's capabilities, optionally
// its info) and nothing that needs a session. A log level (logging is
// deprecated, SEP-2577) is left to the SDK with the rest.
func newProtocolMeta(raw json.RawMessage) (mcp.Meta, bool) {
	m, ok := members(raw, mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities)
	if !ok || string(m[mcp.MetaKeyProtocolVersion]) != `"`+newProtocol+`"` || firstByte(m[mcp.MetaKeyClientCapabilities]) != '{' {
		return nil, false
	}
	if info, present := m[mcp.MetaKeyClientInfo]; present && firstByte(info) != '{' {
		return nil, false
	}
	var meta mcp.Meta
	if json.Unmarshal(raw, &meta) != nil {
		return nil, false
	}
	return meta, true
}

// members decodes a JSON object whose member names are all among allowed,
// each at most once, matched exactly (encoding/json would match names
// case-insensitively and keep the last of duplicates).
func members(raw []byte, allowed ...string) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	out := make(map[string]json.RawMessage, len(allowed))
	for dec.More() {
		tok, err := dec.Token()
		name, isName := tok.(string)
		if err != nil || !isName || !slices.Contains(allowed, name) || out[name] != nil {
			return nil, false
		}
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return nil, false
		}
		out[name] = value
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return out, true
}

// wireID is a JSON-RPC id as it goes back: a string, re-encoded, or an
// integer a float64 holds exactly (the SDK decodes numbers as float64).
// Null, fractions, exponents and larger integers are left to the SDK.
func wireID(raw json.RawMessage) ([]byte, bool) {
	switch firstByte(raw) {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		out, err := json.Marshal(s)
		return out, err == nil
	case 0, 'n', 't', 'f', '{', '[':
		return nil, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > maxExactInt || n < -maxExactInt {
		return nil, false
	}
	return strconv.AppendInt(nil, n, 10), true
}

// maxExactInt is the largest integer every smaller one of which a float64
// holds exactly.
const maxExactInt = 1 << 53

// firstByte is the first byte of a JSON value, 0 for none.
func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}
