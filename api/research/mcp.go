package research

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/platform"
)

const principalExtra = "gatehouse.principal"

// NewMCPServer lists the catalogue on an MCP server under its default
// names; every call goes through Service.Invoke, and errors are tool
// results with isError.
func NewMCPServer(s *Service, version string) *mcp.Server {
	return NewMCPServerNamed(s, version, NamingDefault)
}

// NewMCPServerNamed lists the catalogue under one naming only: a tool is
// callable by the name it is listed under, never by its other form.
func NewMCPServerNamed(s *Service, version string, naming Naming) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gatehouse-research", Version: version}, nil)
	for i := range s.Cat.Tools {
		t := &s.Cat.Tools[i]
		raw, _ := json.Marshal(t.Schema)
		tool := &mcp.Tool{Name: s.Cat.NameIn(t, naming), Description: t.Description, InputSchema: json.RawMessage(raw),
			Annotations: annotationsFor(t)}
		if t.Hidden {
			tool.Meta = mcp.Meta{"hidden": true, "io.gatehouse/hidden": true}
		}
		name := t.Name
		srv.AddTool(tool, rest.RecoverTool(s.Log, "/mcp/research", name, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var p platform.Principal
			if req.Extra != nil && req.Extra.TokenInfo != nil {
				p, _ = req.Extra.TokenInfo.Extra[principalExtra].(platform.Principal)
			}
			if p.CredentialID == "" {
				return errorResult(&ToolError{Code: CodeForbidden, Message: "no authenticated credential"}), nil
			}
			out, terr := s.Invoke(ctx, p, name, req.Params.Arguments)
			if terr != nil {
				return errorResult(terr), nil
			}
			return okResult(out), nil
		}, func() *mcp.CallToolResult {
			return errorResult(&ToolError{Code: CodeInternal, Message: "internal error while handling " + name + "; it was logged",
				Details: map[string]any{"retryable": false}})
		}))
	}
	return srv
}

func okResult(v any) *mcp.CallToolResult {
	raw, err := json.Marshal(v)
	if err != nil {
		return errorResult(&ToolError{Code: CodeUnavailable, Message: "result did not encode"})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw)}
}

func errorResult(e *ToolError) *mcp.CallToolResult {
	raw, _ := json.Marshal(errorBody{Error: e})
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw)}
}

// MCPHandler serves MCP over Streamable HTTP (stateless) behind the bearer
// credential: rest.Require authenticates, then the principal is handed to
// the SDK as token info so each tool call sees who called. The names query
// parameter picks the naming of the connection (?names=underscore for
// clients that reject dots). DNS-rebinding protection is rest.GuardHosts
// where the route is mounted, not the SDK's localhost protection: that one
// refuses a same-host proxy's public Host and ignores Origin.
func MCPHandler(s *Service, version string) gin.HandlerFunc {
	servers := map[Naming]*mcp.Server{}
	for _, n := range []Naming{NamingDefault, NamingDotted, NamingUnderscore} {
		servers[n] = NewMCPServerNamed(s, version, n)
	}
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		n, _ := ParseNaming(r.URL.Query().Get("names"))
		return servers[n]
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
	verify := func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p, ok := r.Context().Value(principalCtxKey{}).(platform.Principal)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: p.CredentialID, Expiration: time.Now().Add(time.Hour), Extra: map[string]any{principalExtra: p}}, nil
	}
	wrapped := auth.RequireBearerToken(verify, nil)(h)
	return func(c *gin.Context) {
		p, ok := rest.PrincipalOf(c)
		if !ok {
			rest.Abort(c, http.StatusUnauthorized, CodeUnauthorized, "missing credential")
			return
		}
		if _, err := ParseNaming(c.Query("names")); err != nil {
			rest.Abort(c, http.StatusBadRequest, CodeInvalidInput, err.Error())
			return
		}
		ctx := withRequestBase(context.WithValue(c.Request.Context(), principalCtxKey{}, p), c.Request)
		wrapped.ServeHTTP(c.Writer, c.Request.WithContext(ctx))
	}
}

type principalCtxKey struct{}

// errorBody is how a refused tool call answers, over MCP and REST alike.
type errorBody struct {
	Error *ToolError `json:"error"`
}
