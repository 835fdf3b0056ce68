package telemetry

import (
	"context"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

func family(t *testing.T, tel *Telemetry, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := tel.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

func TestTemporalMetrics_SDKCountersAreExportedAsCountersWithTotal(t *testing.T) {
	t.Parallel()
	tel, err := New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	h := tel.TemporalMetrics().WithTags(map[string]string{"namespace": "default", "operation": "StartWorkflowExecution"})
	h.Counter("temporal_request").Inc(2)
	h.Counter("temporal_request").Inc(1)
	h.Gauge("temporal_worker_task_slots_available").Update(7)
	h.Timer("temporal_request_latency").Record(30 * time.Millisecond)

	c := family(t, tel, "temporal_request_total")
	if c == nil || c.GetType() != dto.MetricType_COUNTER {
		t.Fatalf("temporal_request must be exposed as the counter temporal_request_total, got %v", c)
	}
	m := c.GetMetric()[0]
	if m.GetCounter().GetValue() != 3 {
		t.Fatalf("counter value %v, want 3", m.GetCounter().GetValue())
	}
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["namespace"] != "default" || labels["operation"] != "StartWorkflowExecution" {
		t.Fatalf("tags lost: %v", labels)
	}
	if f := family(t, tel, "temporal_request"); f != nil {
		t.Fatalf("no gauge named temporal_request may remain: %v", f.GetType())
	}
	if g := family(t, tel, "temporal_worker_task_slots_available"); g == nil || g.GetType() != dto.MetricType_GAUGE {
		t.Fatalf("SDK gauges stay gauges: %v", g)
	}
	if h := family(t, tel, "temporal_request_latency_seconds"); h == nil || h.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("SDK timers are histograms in seconds: %v", h)
	}
}
