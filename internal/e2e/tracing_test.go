package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/gatehouse/gatehouse/internal/telemetry"
)

// One FlyLab tool call carrying an agent's traceparent yields one trace:
// the api's HTTP server span, the Temporal update (client and workflow
// side), the activity, and the database write the activity made.
func TestTracing_OneFlyLabToolCallIsOneTraceThroughHTTPTemporalAndTheDatabase(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	telemetry.SetSpanExporter(exp)
	t.Cleanup(func() {
		telemetry.SetSpanExporter(nil)
		otel.SetTracerProvider(tracenoop.NewTracerProvider())
	})
	s := StartStack(t, StackOptions{})
	c := loadFlyContract(t)
	insp := mustOK(t, flyTool(t, s, c, s.APIKey, "inspect_flylab_state", map[string]any{}))
	sid := insp["page_session_id"].(string)
	cur := flyTool(t, s, c, s.APIKey, "inspect_flylab_state", nil)

	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	r := s.Do(t, http.MethodPost, "/v1/flylab/tools/find_fly_circuits", s.APIKey, map[string]any{
		"page_session_id": sid, "expected_state_revision": cur["state_revision"],
		"query": "moonwalker descending neuron backward walking", "behavior": "backward_walking"},
		"traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"ok":true`) {
		t.Fatalf("find_fly_circuits: %d %s", r.Status, truncate(r.Body))
	}

	want := map[string]func(string) bool{
		"HTTP server span": func(n string) bool { return n == "POST /v1/flylab/tools/:name" },
		"Temporal update":  func(n string) bool { return strings.HasPrefix(n, "UpdateWorkflow:") },
		"workflow update": func(n string) bool {
			return strings.HasPrefix(n, "HandleUpdate:") || strings.HasPrefix(n, "ValidateUpdate:")
		},
		"activity":       func(n string) bool { return strings.HasPrefix(n, "RunActivity:") },
		"database write": func(n string) bool { return strings.HasPrefix(n, "INSERT ") },
	}
	var names []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		names = names[:0]
		found := map[string]bool{}
		for _, sp := range exp.GetSpans() {
			if sp.SpanContext.TraceID().String() != traceID {
				continue
			}
			names = append(names, sp.Name)
			for what, match := range want {
				if match(sp.Name) {
					found[what] = true
				}
			}
		}
		if len(found) == len(want) {
			break
		}
		if time.Now().After(deadline) {
			var missing []string
			for what := range want {
				if !found[what] {
					missing = append(missing, what)
				}
			}
			t.Fatalf("trace %s lacks %v; it has %v", traceID, missing, names)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("trace %s: %v", traceID, names)
	for _, sp := range exp.GetSpans() {
		if sp.Name == "POST /v1/flylab/tools/:name" && sp.SpanContext.TraceID().String() == traceID {
			if sp.Parent.SpanID().String() != "00f067aa0ba902b7" || sp.SpanKind != trace.SpanKindServer {
				t.Fatalf("the server span must continue the caller's span: parent %s kind %v", sp.Parent.SpanID(), sp.SpanKind)
			}
		}
	}
}
