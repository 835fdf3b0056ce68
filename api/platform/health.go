// Package platform serves the endpoints every deployment has: liveness,
// readiness, the ping workflow round trip and credential minting.
package platform

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/internal/buildinfo"
)

// Healthz answers 200 while the process serves requests: liveness, with no
// dependency in it, so an outage elsewhere never restarts a pod.
func Healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok", "build": buildinfo.Get()})
}

// Readyz probes every dependency and answers 200 when the required ones
// answer, 503 otherwise. The body names every dependency and its state,
// required or not: {"database":"ok","temporal":"error: …"}.
func Readyz(deps Dependencies) gin.HandlerFunc {
	return func(c *gin.Context) {
		results := deps.probe(c.Request.Context())
		states := make(map[string]string, len(results))
		for name, err := range results {
			states[name] = "ok"
			if err != nil {
				states[name] = "error: " + err.Error()
			}
		}
		status := http.StatusOK
		if !deps.ready(results) {
			status = http.StatusServiceUnavailable
		}
		c.JSON(status, states)
	}
}
