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
}

// WithTags keeps counters monotonic on the tagged handler.
func (m monotonicCounters) WithTags(tags map[string]string) client.MetricsHandler {
	return monotonicCounters{m.MetricsHandler.WithTags(tags).(temporalotel.MetricsHandler)}
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
