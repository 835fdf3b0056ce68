package telemetry

import (
	"context"
	"fmt"
	"testing"

	"go.temporal.io/sdk/client"
)

func newTemporalMetrics(t testing.TB) (*Telemetry, monotonicCounters) {
	t.Helper()
	tel, err := New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return tel, tel.TemporalMetrics().(monotonicCounters)
}

// TestWithTags_RepeatedTagSetsShareOneHandlerAndKeepTheirCounts proves the
// memo answers a repeated tag set (in any map order) from one entry, keeps
// a different parent or value apart, and that counts through the shared
// handler all reach the one exported series.
func TestWithTags_RepeatedTagSetsShareOneHandlerAndKeepTheirCounts(t *testing.T) {
	t.Parallel()
	tel, root := newTemporalMetrics(t)
	a := root.WithTags(map[string]string{"namespace": "default", "operation": "PollWorkflowTaskQueue"})
	b := root.WithTags(map[string]string{"operation": "PollWorkflowTaskQueue", "namespace": "default"})
	if n := root.tagged.len(); n != 1 {
		t.Fatalf("two equal tag sets built %d handlers, want 1", n)
	}
	other := root.WithTags(map[string]string{"namespace": "default", "operation": "RespondWorkflowTaskCompleted"})
	child := a.WithTags(map[string]string{"namespace": "default", "operation": "PollWorkflowTaskQueue"})
	if n := root.tagged.len(); n != 3 {
		t.Fatalf("a new value and a tagged parent must each get their own handler: %d handlers, want 3", n)
	}
	if got, want := a.(monotonicCounters).GetAttributes(), other.(monotonicCounters).GetAttributes(); got.Equals(&want) {
		t.Fatalf("different operations share attributes %v", got)
	}
	a.Counter("temporal_request").Inc(2)
	b.Counter("temporal_request").Inc(3)
	child.Counter("temporal_request").Inc(1)
	other.Counter("temporal_request").Inc(5)
	c := family(t, tel, "temporal_request_total")
	if c == nil {
		t.Fatal("no temporal_request_total exported")
	}
	counts := map[string]float64{}
	for _, m := range c.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "operation" {
				counts[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	if counts["PollWorkflowTaskQueue"] != 6 || counts["RespondWorkflowTaskCompleted"] != 5 {
		t.Fatalf("counts by operation %v, want PollWorkflowTaskQueue 6 and RespondWorkflowTaskCompleted 5", counts)
	}
}

// TestWithTags_PastTheBoundHandlersAreStillRight fills the memo and checks
// a tag set past the bound still gets its own attributes, uncached.
func TestWithTags_PastTheBoundHandlersAreStillRight(t *testing.T) {
	t.Parallel()
	_, root := newTemporalMetrics(t)
	for i := range maxTaggedHandlers + 10 {
		root.WithTags(map[string]string{"activity_type": fmt.Sprint("A", i)})
	}
	if n := root.tagged.len(); n != maxTaggedHandlers {
		t.Fatalf("memo holds %d handlers, want the bound %d", n, maxTaggedHandlers)
	}
	h := root.WithTags(map[string]string{"activity_type": "past-the-bound"}).(monotonicCounters)
	attrs := h.GetAttributes()
	v, ok := attrs.Value("activity_type")
	if !ok || v.AsString() != "past-the-bound" {
		t.Fatalf("handler past the bound has activity_type %v (%v)", v.AsString(), ok)
	}
}

// TestCanonicalTags_NoTwoMapsCollide checks maps that concatenate to the
// same text stay apart.
func TestCanonicalTags_NoTwoMapsCollide(t *testing.T) {
	t.Parallel()
	pairs := [][2]map[string]string{
		{{"a": "bc"}, {"ab": "c"}},
		{{"a": "b", "c": "d"}, {"a": "b:c", "d": ""}},
		{{"": "x"}, {"x": ""}},
	}
	for _, p := range pairs {
		if canonicalTags(p[0]) == canonicalTags(p[1]) {
			t.Errorf("%v and %v share the key %q", p[0], p[1], canonicalTags(p[0]))
		}
	}
}

// BenchmarkTemporalMetrics_WithTags is what the SDK pays per RPC and per
// task to tag its handler, with the memo and as the contrib handler alone
// does it.
func BenchmarkTemporalMetrics_WithTags(b *testing.B) {
	tags := map[string]string{"namespace": "default", "task_queue": "gatehouse", "operation": "RespondWorkflowTaskCompleted"}
	_, root := newTemporalMetrics(b)
	for _, bc := range []struct {
		name string
		h    client.MetricsHandler
	}{{"memo", root}, {"fresh", root.MetricsHandler}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.h.WithTags(tags)
			}
		})
	}
}
