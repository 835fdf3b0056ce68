// Package api builds Gatehouse's HTTP surface on Gin: the platform
// endpoints, each domain's REST and MCP routes, the operator endpoints and
// the OpenAPI document. Domain handlers live in api/<domain>.
package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gatehouse/gatehouse/api/console"
	"github.com/gatehouse/gatehouse/api/flylab"
	"github.com/gatehouse/gatehouse/api/platform"
	"github.com/gatehouse/gatehouse/api/research"
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
	if d.Telemetry.Tracing() { // else a span per request that nothing records: a dozen allocations
		engine.Use(rest.Trace())
	}
	engine.Use(rest.RequestID(), rest.Recover(d.Log), rest.Observe(d.Log, d.Telemetry.HTTP), rest.LimitBody(d.Config.MaxBodyBytes), rest.GuardJSON())

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
	// Both MCP endpoints refuse Host and Origin names other than loopback
	// names, GATEHOUSE_PUBLIC_URL's host and GATEHOUSE_MCP_ALLOWED_HOSTS
	// (DNS-rebinding protection).
	mcpHosts := rest.NewHostPolicy(d.Config.PublicURL, d.Config.MCPAllowedHosts)
	// FlyLab: MCP, REST, published documents, operator approval.
	flylab.MountService(r.Group("", rest.GuardHosts(mcpHosts, "/mcp/flylab")), d, svc.flylab)
	// The flywheel wire contract, operator rollout endpoints and the LLM gateway.
	svc.flywheel.Mount(r, d)
	// The research tools: MCP and REST.
	research.MountService(r.Group("", rest.GuardHosts(mcpHosts, "/mcp/research")), d, svc.research, Version)
	if err := mountConsole(r, d, svc); err != nil {
		return nil, err
	}
	return &Server{Engine: engine, Document: doc}, nil
}

// mountConsole registers the operator console. Its pages read each domain
// through the adapters of console.DomainSources; a domain this deployment
// does not have shows as not available.
func mountConsole(r *rest.Router, d Deps, svc *services) error {
	sources, err := console.DomainSources(d, console.Services{FlyLab: svc.flylab, Flywheel: svc.flywheel, Research: svc.research})
	if err != nil {
		return err
	}
	c, err := console.New(console.Options{
		DB:            d.DB,
		Sources:       sources,
		PublicURL:     d.Config.PublicURL,
		TemporalUIURL: d.Config.TemporalUIURL,
		Namespace:     d.Config.TemporalNamespace,
		Log:           d.Log,
	})
	if err != nil {
		return err
	}
	c.Mount(r)
	return nil
}
