package rest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// Document is the OpenAPI 3.1 description of every documented route.
type Document struct {
	mu      sync.Mutex
	title   string
	version string
	ops     map[string]map[string]Op // path -> method -> op
	exempts map[string]string        // "METHOD path" -> why
}

// NewDocument starts an empty document.
func NewDocument(title, version string) *Document {
	return &Document{title: title, version: version, ops: map[string]map[string]Op{}, exempts: map[string]string{}}
}

func (d *Document) add(method, path string, op Op) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := openAPIPath(path)
	if d.ops[p] == nil {
		d.ops[p] = map[string]Op{}
	}
	d.ops[p][strings.ToLower(method)] = op
}

func (d *Document) exempt(method, path, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.exempts[method+" "+path] = why
}

// Documented reports whether a Gin route (":id" syntax) is in the document.
func (d *Document) Documented(method, ginPath string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.ops[openAPIPath(ginPath)][strings.ToLower(method)]
	return ok
}

// Exempt reports whether a route was registered as undocumented on purpose.
func (d *Document) Exempt(method, ginPath string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.exempts[method+" "+ginPath]
	return ok
}

// Operations lists every documented "METHOD /openapi/{path}".
func (d *Document) Operations() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for p, m := range d.ops {
		for method := range m {
			out = append(out, strings.ToUpper(method)+" "+p)
		}
	}
	sort.Strings(out)
	return out
}

// JSON renders the OpenAPI 3.1 document.
func (d *Document) JSON() map[string]any {
	d.mu.Lock()
	defer d.mu.Unlock()
	paths := map[string]any{}
	for p, methods := range d.ops {
		item := map[string]any{}
		for method, op := range methods {
			item[method] = operationJSON(p, op)
		}
		paths[p] = item
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": d.title, "version": d.version},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"agentKey":      map[string]any{"type": "http", "scheme": "bearer", "description": "Agent API key (mk_…)"},
				"operatorToken": map[string]any{"type": "http", "scheme": "bearer", "description": "Operator token (op_…)"},
				"rolloutKey":    map[string]any{"type": "http", "scheme": "bearer", "description": "A leased rollout's api_key"},
			},
			"schemas": map[string]any{"Error": errorSchema},
		},
	}
}

var errorSchema = map[string]any{
	"type":     "object",
	"required": []string{"error"},
	"properties": map[string]any{"error": map[string]any{
		"type":     "object",
		"required": []string{"code", "message"},
		"properties": map[string]any{
			"code":    map[string]any{"type": "string"},
			"message": map[string]any{"type": "string"},
			"details": map[string]any{},
		},
	}},
}

func operationJSON(path string, op Op) map[string]any {
	o := map[string]any{"summary": op.Summary, "operationId": operationID(path)}
	if op.Tag != "" {
		o["tags"] = []string{op.Tag}
	}
	var params []any
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			params = append(params, map[string]any{
				"name": seg[1 : len(seg)-1], "in": "path", "required": true, "schema": map[string]any{"type": "string"},
			})
		}
	}
	if params != nil {
		o["parameters"] = params
	}
	if len(op.Auth) > 0 {
		var sec []any
		for _, role := range op.Auth {
			sec = append(sec, map[string]any{role + securitySuffix(role): []string{}})
		}
		o["security"] = sec
	}
	if op.Request != nil {
		o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": op.Request}}}
	}
	responses := map[string]any{}
	for code, desc := range op.Responses {
		r := map[string]any{"description": desc}
		if code >= 400 {
			r["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}
		}
		responses[strconv.Itoa(code)] = r
	}
	if len(responses) == 0 {
		responses["200"] = map[string]any{"description": "OK"}
	}
	o["responses"] = responses
	return o
}

func securitySuffix(role string) string {
	switch role {
	case "agent", "rollout":
		return "Key"
	default:
		return "Token"
	}
}

func operationID(path string) string {
	r := strings.NewReplacer("/", "_", "{", "", "}", "", ".", "_", "-", "_", ":", "_")
	return strings.Trim(r.Replace(path), "_")
}

// openAPIPath turns Gin's ":id" and "*rest" into OpenAPI's "{id}".
func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// Handler serves the document.
func (d *Document) Handler() gin.HandlerFunc {
	return func(c *gin.Context) { c.JSON(http.StatusOK, d.JSON()) }
}
