package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
)

// monotonicCounters is the SDK's OpenTelemetry metrics handler with its
// counters made monotonic. The contrib handler records SDK counters
// (temporal_request, temporal_workflow_completed, …) as up-down counters,
// which Prometheus receives as gauges without _total; an SDK counter only
// ever grows, so it is exported as a counter (temporal_request_total).
// Gauges and timers are the contrib handler's.
type monotonicCounters struct {
	temporalotel.MetricsHandler
	// tagged memoizes WithTags (tagged_handlers.go), shared by every
	// handler tagged from the same root.
	tagged *taggedHandlers
	// id names this handler in tagged's keys.
	id uint64
}

// WithTags keeps counters monotonic on the tagged handler, and answers a
// tag set this handler was given before from the memo.
func (m monotonicCounters) WithTags(tags map[string]string) client.MetricsHandler {
	key := taggedKey{parent: m.id, tags: canonicalTags(tags)}
	if h, ok := m.tagged.get(key); ok {
		return h
	}
	var h client.MetricsHandler = m.tag(tags)
	m.tagged.put(key, h)
	return h
}

// tag builds the handler with tags added, sharing this one's memo.
func (m monotonicCounters) tag(tags map[string]string) monotonicCounters {
	return monotonicCounters{MetricsHandler: m.MetricsHandler.WithTags(tags).(temporalotel.MetricsHandler),
		tagged: m.tagged, id: m.tagged.nextID.Add(1)}
}

// Counter is an OpenTelemetry Int64Counter with the handler's attributes.
func (m monotonicCounters) Counter(name string) client.MetricsCounter {
	c, err := m.GetMeter().Int64Counter(name)
	if err != nil {
		return client.MetricsNopHandler.Counter(name)
	}
	attrs := metric.WithAttributeSet(m.GetAttributes())
	return counterFunc(func(d int64) { c.Add(context.Background(), d, attrs) })
}

// Unwrap lets temporalotel.ExtractMetricsHandler find the contrib handler.
func (m monotonicCounters) Unwrap() client.MetricsHandler { return m.MetricsHandler }

type counterFunc func(int64)

func (f counterFunc) Inc(d int64) { f(d) }
