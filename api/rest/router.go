// Package rest is the shared machinery of Gatehouse's REST surface: a router
// that registers each Gin route together with its OpenAPI operation (so the
// document cannot drift from the routes), the JSON error shape,
// authentication by role, and the request middleware.
package rest

import (
	"strings"

	"github.com/gin-gonic/gin"
)

// Op documents one REST operation.
type Op struct {
	// Summary is a one-line description.
	Summary string
	// Tag groups operations (platform, flylab, flywheel, research, operator).
	Tag string
	// Auth lists the roles that may call it; empty means public.
	Auth []string
	// Request is a JSON Schema of the body, or nil.
	Request map[string]any
	// Responses maps status codes to descriptions.
	Responses map[int]string
}

// Router registers routes on a Gin group and documents them.
type Router struct {
	group *gin.RouterGroup
	doc   *Document
}

// NewRouter wraps the engine's root group.
func NewRouter(engine *gin.Engine, doc *Document) *Router {
	return &Router{group: &engine.RouterGroup, doc: doc}
}

// Group returns a router for a path prefix with extra middleware.
func (r *Router) Group(prefix string, mw ...gin.HandlerFunc) *Router {
	return &Router{group: r.group.Group(prefix, mw...), doc: r.doc}
}

// Handle registers and documents a route.
func (r *Router) Handle(method, path string, op Op, handlers ...gin.HandlerFunc) {
	full := joinPath(r.group.BasePath(), path)
	r.doc.add(method, full, op)
	r.group.Handle(method, path, handlers...)
}

// Undocumented registers a route kept out of the OpenAPI document on
// purpose (MCP endpoints, the console, the LLM gateway, static documents),
// recording why so tests can tell it from a forgotten one.
func (r *Router) Undocumented(method, path, why string, handlers ...gin.HandlerFunc) {
	r.doc.exempt(method, joinPath(r.group.BasePath(), path), why)
	r.group.Handle(method, path, handlers...)
}

func joinPath(base, path string) string {
	if path == "" || path == "/" {
		if base == "" {
			return "/"
		}
		return base
	}
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}
