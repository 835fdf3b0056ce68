package rest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// The access log must not hand a log reader the tokens that authorize an
// upload, a download or LLM gateway calls.
func TestObserve_AccessLogKeepsNoTokenFromThePath(t *testing.T) {
	e, logs, _ := observedEngine(t)
	ok := func(c *gin.Context) { c.Status(http.StatusOK) }
	e.PUT("/api/artifacts/u/:token", ok)
	e.POST("/llm/:token/v1/*path", ok)
	e.GET("/flywheel/rollouts/:id", ok)
	upload := "up_" + strings.Repeat("a1", 32)
	llm := "lg_" + strings.Repeat("b2", 24)
	stray := "lg_" + strings.Repeat("c3", 24)
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodPut, "/api/artifacts/u/"+upload, nil),
		httptest.NewRequest(http.MethodPost, "/llm/"+llm+"/v1/chat/completions", nil),
		httptest.NewRequest(http.MethodGet, "/llm/"+stray+"/v2/unknown", nil), // matches no route
		httptest.NewRequest(http.MethodGet, "/flywheel/rollouts/ro_0123456789abcdef01234567", nil),
	} {
		e.ServeHTTP(httptest.NewRecorder(), r)
	}
	out := logs.String()
	for _, secret := range []string{upload, llm, stray} {
		if strings.Contains(out, secret) {
			t.Errorf("the access log holds the token %s:\n%s", secret, out)
		}
	}
	for _, want := range []string{`"path":"/api/artifacts/u/[redacted]"`, `"path":"/llm/[redacted]/v1/chat/completions"`,
		`"path":"/flywheel/rollouts/ro_0123456789abcdef01234567"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the access log lacks %s:\n%s", want, out)
		}
	}
}
