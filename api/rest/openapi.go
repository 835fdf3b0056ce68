package rest

import (
	"encoding/json"
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

// JSON renders the OpenAPI 3.1 document. Every operation gets its
// operationId, parameters and bodies from operationSpecs; every error
// answer refers to the one error envelope (components.schemas.Error).
func (d *Document) JSON() map[string]any {
	d.mu.Lock()
	defer d.mu.Unlock()
	paths := map[string]any{}
	for p, methods := range d.ops {
		item := map[string]any{}
		for method, op := range methods {
			item[method] = operationJSON(method, p, op)
		}
		paths[p] = item
	}
	schemas, err := componentSchemas()
	if err != nil {
		// The embedded contracts are fixed at build time; a test renders
		// the document, so this cannot reach a caller unnoticed.
		panic(err)
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": d.title, "version": d.version,
			"description": "Every error answers the envelope components.schemas.Error: " +
				`{"error": {"code", "message", "details"}}, with Retry-After on 503.`},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"agentKey":      map[string]any{"type": "http", "scheme": "bearer", "description": "Agent API key (mk_…)"},
				"operatorToken": map[string]any{"type": "http", "scheme": "bearer", "description": "Operator token (op_…)"},
				"rolloutKey":    map[string]any{"type": "http", "scheme": "bearer", "description": "A leased rollout's api_key"},
			},
			"schemas": schemas,
			"responses": map[string]any{"Error": map[string]any{
				"description": "an error: the error envelope",
				"content":     map[string]any{"application/json": map[string]any{"schema": component("Error")}},
			}},
		},
	}
	return detached(doc)
}

// detached deep-copies the document (the routes' schemas are shared
// values) and points references into the flywheel schema at components.
func detached(doc map[string]any) map[string]any {
	raw, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	localRefs(out)
	return out
}

// SpecKey names an operation in operationSpecs: "METHOD /openapi/{path}".
func SpecKey(method, path string) string {
	return strings.ToUpper(method) + " " + openAPIPath(path)
}

// Unspecified lists documented operations without a row in the
// operation table, and rows without a documented operation.
func (d *Document) Unspecified() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for p, methods := range d.ops {
		for method := range methods {
			k := SpecKey(method, p)
			seen[k] = true
			if _, ok := operationSpecs[k]; !ok {
				out = append(out, "no spec row for "+k)
			}
		}
	}
	for k := range operationSpecs {
		if !seen[k] {
			out = append(out, "spec row without a route: "+k)
		}
	}
	sort.Strings(out)
	return out
}

func operationJSON(method, path string, op Op) map[string]any {
	spec := operationSpecs[SpecKey(method, path)]
	id := spec.ID
	if id == "" {
		id = method + "_" + operationID(path)
	}
	o := map[string]any{"summary": op.Summary, "operationId": id}
	if op.Tag != "" {
		o["tags"] = []string{op.Tag}
	}
	if params := parameters(path, spec); params != nil {
		o["parameters"] = params
	}
	if len(op.Auth) > 0 {
		var sec []any
		for _, role := range op.Auth {
			sec = append(sec, map[string]any{role + securitySuffix(role): []string{}})
		}
		o["security"] = sec
	}
	request := op.Request
	if spec.Request != nil {
		request = spec.Request
	}
	if request != nil {
		o["requestBody"] = map[string]any{"required": !spec.OptionalBody,
			"content": map[string]any{"application/json": map[string]any{"schema": request}}}
	}
	o["responses"] = responses(op, spec)
	return o
}

func parameters(path string, spec operationSpec) []any {
	var params []any
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			params = append(params, map[string]any{
				"name": seg[1 : len(seg)-1], "in": "path", "required": true, "schema": map[string]any{"type": "string"},
			})
		}
	}
	for in, ps := range map[string][]Param{"query": spec.Query, "header": spec.Headers} {
		for _, p := range ps {
			param := map[string]any{"name": p.Name, "in": in, "required": p.Required, "schema": p.Schema}
			if p.Description != "" {
				param["description"] = p.Description
			}
			params = append(params, param)
		}
	}
	return params
}

func responses(op Op, spec operationSpec) map[string]any {
	out := map[string]any{"default": map[string]any{"$ref": "#/components/responses/Error"}}
	codes := map[int]string{}
	for code, desc := range op.Responses {
		codes[code] = desc
	}
	for code, b := range spec.Bodies {
		if codes[code] == "" {
			codes[code] = b.Description
		}
	}
	for code, desc := range codes {
		if desc == "" {
			desc = http.StatusText(code)
		}
		r := map[string]any{"description": desc}
		if b, ok := spec.Bodies[code]; ok {
			media := b.Media
			if media == "" {
				media = "application/json"
			}
			r["content"] = map[string]any{media: map[string]any{"schema": b.Schema}}
		} else if code >= 400 {
			r["content"] = map[string]any{"application/json": map[string]any{"schema": component("Error")}}
		}
		out[strconv.Itoa(code)] = r
	}
	return out
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
