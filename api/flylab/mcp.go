package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/internal/mcpdirect"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// UntrustedContentMeta is the _meta key carrying the contract's
// untrustedContentHint, which MCP annotations lack.
const UntrustedContentMeta = "io.gatehouse/untrustedContentHint"

const principalExtra = "gatehouse.principal"

// mcpImplementation is how the FlyLab MCP server names itself.
var mcpImplementation = &mcp.Implementation{Name: "gatehouse-flylab", Title: "Gatehouse FlyLab", Version: "3"}

// MCPServer builds the MCP server listing exactly the contract's tools,
// with their raw input schemas served byte for byte.
func (s *Service) MCPServer() *mcp.Server {
	srv, _ := s.mcpServerAndTools()
	return srv
}

// mcpServerAndTools is the MCP server and its tool handlers by name, which
// the endpoint also runs directly (internal/mcpdirect).
func (s *Service) mcpServerAndTools() (*mcp.Server, map[string]mcp.ToolHandler) {
	srv := mcp.NewServer(mcpImplementation, nil)
	handlers := make(map[string]mcp.ToolHandler, len(s.tools))
	for _, t := range s.tools {
		untrusted, _ := t.Annotations["untrustedContentHint"].(bool)
		handlers[t.Name] = rest.RecoverTool(s.deps.Log, "/mcp/flylab", t.Name, s.mcpTool(t.Name), func() *mcp.CallToolResult { return s.internalResult(t.Name) })
		srv.AddTool(&mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: json.RawMessage(t.InputSchema),
			Annotations: annotationsFor(t),
			Meta:        mcp.Meta{UntrustedContentMeta: untrusted}},
			handlers[t.Name])
	}
	return srv, handlers
}

// internalResult is the failure envelope of a call whose handler panicked:
// a bug, so not worth retrying as it is.
func (s *Service) internalResult(name string) *mcp.CallToolResult {
	env := s.failure(name, "", 0, &wf.ToolFailure{Code: wf.CodeSimulationUnavailable,
		Message: "internal error while handling " + name + "; it was logged", Details: map[string]any{"cause": "internal"}})
	raw, _ := json.Marshal(env)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw), IsError: true}
}

// mcpTool answers a tools/call with the envelope as structuredContent and
// the identical JSON as text; failures set isError.
func (s *Service) mcpTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var p platform.Principal
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			p, _ = req.Extra.TokenInfo.Extra[principalExtra].(platform.Principal)
		}
		if p.CredentialID == "" {
			return nil, errors.New("unauthenticated")
		}
		var progress ProgressFunc
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			progress = func(done, total float64) {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
					Progress: done, Total: total, Message: fmt.Sprintf("%.0f of %.0f runs simulated", done, total)})
			}
		}
		if req.Extra != nil {
			if id := req.Extra.Header.Get(mcpCallHeader); id != "" {
				ctx = withCallID(ctx, mcpCallID(p.CredentialID, json.RawMessage(id)))
			}
		}
		env, _ := s.Call(ctx, p, name, req.Params.Arguments, progress)
		raw, err := json.Marshal(env)
		if err != nil {
			return nil, err
		}
		ok, _ := env["ok"].(bool)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}},
			StructuredContent: json.RawMessage(raw), IsError: !ok}, nil
	}
}

// mcpHandler is the Streamable HTTP handler behind agent-key bearer auth.
//
// It is stateless: no session lives in one process's memory, so behind a
// load balancer without affinity any api replica answers any request (a
// stateful handler answers "session not found" on every replica but the
// one that saw initialize). Answers stay event streams rather than
// JSONResponse: run_fly_simulation's progress notifications are sent in
// the tool call's context, so they travel on that POST's own stream, which
// needs no session. DNS-rebinding protection is rest.GuardHosts, mounted
// in front of this handler. A plain tools/call (no progress token) is
// answered by mcpdirect without the SDK's per-request session and
// triple encoding; everything else goes to the SDK.
func (s *Service) mcpHandler() http.Handler {
	srv, tools := s.mcpServerAndTools()
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		// rest.GuardHosts (mounted in front) is the DNS-rebinding check: it
		// also admits the public URL's host and the allow-list, which the
		// SDK's loopback-only check would refuse behind a same-host proxy.
		&mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true})
	h := &mcpdirect.Handler{Server: mcpImplementation, Tools: tools, SDK: sdk}
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		p, err := platform.Authenticate(ctx, s.deps.DB, token)
		if errors.Is(err, platform.ErrInvalidCredential) {
			return nil, fmt.Errorf("%w: unknown credential", auth.ErrInvalidToken)
		} else if err != nil {
			return nil, err
		}
		return &auth.TokenInfo{Scopes: []string{string(p.Role)}, UserID: p.CredentialID,
			Expiration: time.Now().Add(time.Hour), Extra: map[string]any{principalExtra: p}}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{Scopes: []string{string(platform.RoleAgent)}})(s.cancelRelay(h))
}
