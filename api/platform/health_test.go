package platform

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gatehouse/gatehouse/models/modelstest"
)

// switchable is a probe whose answer a test sets.
type switchable struct{ err error }

func (s *switchable) check(context.Context) error { return s.err }

// apiDependencies builds the API's real dependency list with a live SQLite
// database, then swaps in switchable probes where the test needs them.
func apiDependencies(t *testing.T, database, temporal *switchable) Dependencies {
	t.Helper()
	deps := DependencyChecks(modelstest.SQLite(t), nil, "default")
	for i := range deps {
		switch deps[i].Name {
		case "database":
			if database != nil {
				deps[i].Check = database.check
			}
		case "temporal":
			deps[i].Check = temporal.check
		}
	}
	return deps
}

func readyz(t *testing.T, deps Dependencies) (int, map[string]string) {
	t.Helper()
	gin.SetMode(gin.TestMode)
	engine := gin.New()
	engine.GET("/readyz", Readyz(deps))
	rec := httptest.NewRecorder()
	engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	var states map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &states); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	return rec.Code, states
}

// TestReadyz_APIStaysReadyWhileTemporalIsDown: the API's readiness is the
// database alone, so a Temporal outage never pulls every api pod out of the
// Service (the flywheel's database-only paths keep answering); the body
// still says Temporal is down.
func TestReadyz_APIStaysReadyWhileTemporalIsDown(t *testing.T) {
	t.Parallel()
	temporal := &switchable{err: errors.New("connection refused")}
	code, states := readyz(t, apiDependencies(t, nil, temporal))
	if code != http.StatusOK {
		t.Fatalf("readyz with the database up and Temporal down: %d %v", code, states)
	}
	if states["database"] != "ok" || states["temporal"] != "error: connection refused" {
		t.Fatalf("the body must name each dependency's state: %v", states)
	}
	temporal.err = nil
	if code, states := readyz(t, apiDependencies(t, nil, temporal)); code != http.StatusOK || states["temporal"] != "ok" {
		t.Fatalf("everything up: %d %v", code, states)
	}
}

// TestReadyz_APINotReadyWithoutTheDatabase: the database is what every
// API path needs, so losing it is the one reason to leave the Service.
func TestReadyz_APINotReadyWithoutTheDatabase(t *testing.T) {
	t.Parallel()
	database := &switchable{err: errors.New("no route to host")}
	code, states := readyz(t, apiDependencies(t, database, &switchable{}))
	if code != http.StatusServiceUnavailable || states["database"] != "error: no route to host" || states["temporal"] != "ok" {
		t.Fatalf("readyz with the database down: %d %v", code, states)
	}
}

// TestReadyz_RealDatabaseProbeAnswers keeps the SQL ping itself honest.
func TestReadyz_RealDatabaseProbeAnswers(t *testing.T) {
	t.Parallel()
	code, states := readyz(t, apiDependencies(t, nil, &switchable{}))
	if code != http.StatusOK || states["database"] != "ok" {
		t.Fatalf("readyz on a live SQLite database: %d %v", code, states)
	}
}

// TestDependencyCollector_GaugeFollowsEachDependency: the gauge reports
// Temporal's state (which readiness no longer carries) at scrape time.
func TestDependencyCollector_GaugeFollowsEachDependency(t *testing.T) {
	t.Parallel()
	temporal := &switchable{err: errors.New("unavailable")}
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewDependencyCollector(apiDependencies(t, nil, temporal)))
	if got := dependencyUp(t, reg); got["database"] != 1 || got["temporal"] != 0 || len(got) != 2 {
		t.Fatalf("temporal down: %v", got)
	}
	temporal.err = nil
	if got := dependencyUp(t, reg); got["database"] != 1 || got["temporal"] != 1 {
		t.Fatalf("temporal back: %v", got)
	}
}

// dependencyUp scrapes reg and returns gatehouse_dependency_up by dependency.
func dependencyUp(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "gatehouse_dependency_up" || f.GetType().String() != "GAUGE" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "dependency" {
					out[l.GetValue()] = m.GetGauge().GetValue()
				}
			}
		}
	}
	return out
}

// TestDependencyChecks_WhichRoleNeedsTemporalToBeReady pins the decision:
// the api's readiness needs the database only, the worker's needs both.
func TestDependencyChecks_WhichRoleNeedsTemporalToBeReady(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	required := func(deps Dependencies) map[string]bool {
		out := map[string]bool{}
		for _, d := range deps {
			out[d.Name] = d.Required
		}
		return out
	}
	if got := required(DependencyChecks(db, nil, "default")); !got["database"] || got["temporal"] || len(got) != 2 {
		t.Fatalf("api: %v, want database required and temporal reported", got)
	}
	if got := required(WorkerDependencyChecks(db, nil, "default")); !got["database"] || !got["temporal"] || len(got) != 2 {
		t.Fatalf("worker: %v, want both required", got)
	}
}
