package platform

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// HealthHandler serves /healthz, /readyz and /metrics for a role that has
// no API of its own (the worker), so its probes and scrapes look the same
// as the API's. Every other path answers 404.
func HealthHandler(checks Dependencies, metrics http.Handler) http.Handler {
	gin.SetMode(gin.ReleaseMode) // no debug route dump in a production log
	engine := gin.New()
	engine.GET("/healthz", Healthz)
	engine.GET("/readyz", Readyz(checks))
	engine.GET("/metrics", gin.WrapH(metrics))
	return engine
}
