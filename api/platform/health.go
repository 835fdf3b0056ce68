// Package platform serves the endpoints every deployment has: liveness,
// readiness, the ping workflow round trip and credential minting.
package platform

import (
	"context"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// Check is one readiness dependency: nil means it answers.
type Check func(ctx context.Context) error

// Healthz answers 200 while the process serves requests.
func Healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// Readyz runs every check concurrently with a short timeout and answers 200
// only when all pass; the body names each dependency and its state.
func Readyz(checks map[string]Check) gin.HandlerFunc {
	names := make([]string, 0, len(checks))
	for n := range checks {
		names = append(names, n)
	}
	sort.Strings(names)
	return func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
		defer cancel()
		states := make(map[string]string, len(checks))
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, n := range names {
			wg.Add(1)
			go func(n string) {
				defer wg.Done()
				state := "ok"
				if err := checks[n](ctx); err != nil {
					state = "error: " + err.Error()
				}
				mu.Lock()
				states[n] = state
				mu.Unlock()
			}(n)
		}
		wg.Wait()
		status := http.StatusOK
		for _, s := range states {
			if s != "ok" {
				status = http.StatusServiceUnavailable
			}
		}
		c.JSON(status, states)
	}
}
