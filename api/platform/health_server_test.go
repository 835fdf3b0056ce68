package platform

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHealthHandler_WorkerNotReadyWithoutTemporal: the worker's listener
// uses the worker's dependencies, where Temporal is required (a worker that
// cannot reach it polls nothing).
func TestHealthHandler_WorkerNotReadyWithoutTemporal(t *testing.T) {
	t.Parallel()
	var down error
	checks := Dependencies{
		{Name: "database", Check: func(context.Context) error { return nil }, Required: true},
		{Name: "temporal", Check: func(context.Context) error { return down }, Required: true},
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("up 1\n")) })
	h := HealthHandler(checks, metrics)
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}

	if r := get("/healthz"); r.Code != http.StatusOK {
		t.Fatalf("healthz: %d", r.Code)
	}
	if r := get("/readyz"); r.Code != http.StatusOK {
		t.Fatalf("readyz with every check passing: %d %s", r.Code, r.Body)
	}
	down = errors.New("frontend unreachable")
	r := get("/readyz")
	if r.Code != http.StatusServiceUnavailable {
		t.Fatalf("readyz with temporal down: %d", r.Code)
	}
	var states map[string]string
	if err := json.Unmarshal(r.Body.Bytes(), &states); err != nil {
		t.Fatal(err)
	}
	if states["database"] != "ok" || states["temporal"] != "error: frontend unreachable" {
		t.Fatalf("readyz must name each dependency's state: %v", states)
	}
	if r := get("/metrics"); r.Code != http.StatusOK || r.Body.String() != "up 1\n" {
		t.Fatalf("metrics: %d %q", r.Code, r.Body)
	}
	if r := get("/v1/ping"); r.Code != http.StatusNotFound {
		t.Fatalf("the health listener must serve nothing else: %d", r.Code)
	}
}
