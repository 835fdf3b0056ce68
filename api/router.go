// Package api builds Gatehouse's HTTP surface on Gin: the platform
// endpoints, each domain's REST and MCP routes, the operator endpoints and
// the OpenAPI document. Domain handlers live in api/<domain>.
package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gatehouse/gatehouse/api/platform"
	"github.com/gatehouse/gatehouse/api/rest"
)

// Version is the build version, set by the linker.
var Version = "dev"

// Deps are what the API needs to serve.
type Deps = rest.Deps

// Server is the built HTTP surface.
type Server struct {
	Engine   *gin.Engine
	Document *rest.Document
}

// New builds the router with every route registered and documented.
func New(d Deps) (*Server, error) {
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	engine.HandleMethodNotAllowed = true
	engine.ContextWithFallback = true
	engine.NoRoute(func(c *gin.Context) { rest.Abort(c, http.StatusNotFound, "not_found", "no such endpoint") })
	engine.NoMethod(func(c *gin.Context) {
		rest.Abort(c, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed on this endpoint")
	})
	engine.Use(rest.Trace(), rest.RequestID(), rest.Recover(d.Log), rest.Observe(d.Log, d.Telemetry.HTTP), rest.LimitBody(d.Config.MaxBodyBytes), rest.GuardJSON())

	if err := d.Telemetry.RegisterDomainMetrics(d.DB); err != nil {
		return nil, err
	}
	doc := rest.NewDocument("Gatehouse API", Version)
	r := rest.NewRouter(engine, doc)
	r.Handle(http.MethodGet, "/openapi.json", rest.Op{Summary: "This OpenAPI 3.1 document", Tag: "platform",
		Responses: map[int]string{200: "the document"}}, doc.Handler())

	checks := platform.DependencyChecks(d.DB, d.Temporal, d.Config.TemporalNamespace)
	metrics := promhttp.HandlerFor(d.Telemetry.Registry, promhttp.HandlerOpts{})
	platform.Routes(r, d.DB, platform.Pinger{Temporal: d.Temporal, TaskQueue: d.Config.TaskQueue}, checks, metrics)
	svc, err := newServices(d)
	if err != nil {
		return nil, err
	}
	for _, mount := range []func(*rest.Router, Deps, *services) error{mountFlyLab, mountFlywheel, mountResearch, mountConsole} {
		if err := mount(r, d, svc); err != nil {
			return nil, err
		}
	}
	return &Server{Engine: engine, Document: doc}, nil
}
