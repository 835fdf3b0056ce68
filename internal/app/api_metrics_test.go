package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestAPIRole_MetricsOnlyOnTheMetricsListener starts the api role's two
// listeners the way API() does: the public one (which the Ingress routes)
// answers 404 for /metrics however it is spelled and still serves the
// API, while the metrics listener serves the registry, whose HTTP counters
// saw the public request.
func TestAPIRole_MetricsOnlyOnTheMetricsListener(t *testing.T) {
	s := testServices(t, map[string]string{"GATEHOUSE_HTTP_ADDR": "127.0.0.1:0", "GATEHOUSE_METRICS_ADDR": "127.0.0.1:0"})
	if err := s.startPublicAPI(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.close() })
	if s.metrics == nil || s.metrics.Addr() == s.http.Addr() {
		t.Fatalf("the api role needs a metrics listener apart from the public one")
	}
	public, metrics := "http://"+s.http.Addr(), "http://"+s.metrics.Addr()

	if code, body := httpGet(t, public+"/healthz"); code != http.StatusOK {
		t.Fatalf("public /healthz: %d %s", code, body)
	}
	for _, p := range []string{"/metrics", "/metrics/", "/./metrics", "//metrics"} {
		code, body := httpGet(t, public+p)
		if code != http.StatusNotFound || !strings.Contains(body, `"not_found"`) {
			t.Errorf("public %s: %d %.200s, want 404 not_found", p, code, body)
		}
	}
	code, body := httpGet(t, metrics+"/metrics")
	for _, want := range []string{`gatehouse_http_requests_total{method="GET",route="/healthz",status="200"} 1`, `gatehouse_dependency_up{dependency="temporal"} 0`} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("metrics listener /metrics: %d, lacks %s", code, want)
		}
	}
	if code, _ := httpGet(t, metrics+"/healthz"); code != http.StatusOK {
		t.Fatalf("metrics listener /healthz: %d", code)
	}
}

// TestDevStack_KeepsMetricsOnItsOneListener: `gatehouse dev` is a laptop
// stack with a single listener, which keeps serving /metrics.
func TestDevStack_KeepsMetricsOnItsOneListener(t *testing.T) {
	s := testServices(t, map[string]string{"GATEHOUSE_HTTP_ADDR": "127.0.0.1:0"})
	if err := s.startAPI(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.close() })
	if code, body := httpGet(t, "http://"+s.http.Addr()+"/metrics"); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("dev /metrics: %d %.200s", code, body)
	}
}

// testServices are the api role's services configured from env, on an
// SQLite database, with a Temporal that never answers.
func testServices(t *testing.T, env map[string]string) *services {
	t.Helper()
	cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return &services{cfg: cfg, log: slog.New(slog.DiscardHandler), tel: tel, db: modelstest.SQLite(t), temporal: unreachableTemporal{}}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// unreachableTemporal is a Temporal client whose frontend never answers.
type unreachableTemporal struct{ client.Client }

func (unreachableTemporal) WorkflowService() workflowservice.WorkflowServiceClient {
	return unreachableFrontend{}
}

func (unreachableTemporal) Close() {}

type unreachableFrontend struct {
	workflowservice.WorkflowServiceClient
}

func (unreachableFrontend) DescribeNamespace(context.Context, *workflowservice.DescribeNamespaceRequest, ...grpc.CallOption) (*workflowservice.DescribeNamespaceResponse, error) {
	return nil, errors.New("temporal is down")
}
