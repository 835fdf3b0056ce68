package rest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A quiet route's successes stay out of the info access log (its failures
// do not), every call is still counted, and other routes log as before.
func TestObserve_QuietRouteLogsOnlyItsFailuresAtInfo(t *testing.T) {
	e, logs, tel := observedEngine(t)
	e.POST("/rollouts/:id/heartbeat", QuietAccessLog, func(c *gin.Context) {
		if c.Param("id") == "stale" {
			c.Status(http.StatusConflict)
			return
		}
		c.Status(http.StatusOK)
	})
	e.POST("/rollouts/:id/output", func(c *gin.Context) { c.Status(http.StatusOK) })
	for _, path := range []string{"/rollouts/a/heartbeat", "/rollouts/b/heartbeat", "/rollouts/stale/heartbeat", "/rollouts/a/output"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, path, nil))
	}
	out := logs.String()
	if n := strings.Count(out, `"msg":"http request"`); n != 2 {
		t.Errorf("info access log has %d lines, want 2 (the 409 heartbeat and the output):\n%s", n, out)
	}
	for _, want := range []string{`"path":"/rollouts/stale/heartbeat"`, `"path":"/rollouts/a/output"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the access log lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"path":"/rollouts/a/heartbeat"`) {
		t.Errorf("a successful heartbeat was logged at info:\n%s", out)
	}
	ok := testutil.ToFloat64(tel.HTTP.Requests.WithLabelValues(http.MethodPost, "/rollouts/:id/heartbeat", "200"))
	if ok != 2 {
		t.Errorf("successful heartbeats counted %v, want 2", ok)
	}
}
