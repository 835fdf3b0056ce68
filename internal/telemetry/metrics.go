package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"

	"github.com/gatehouse/gatehouse/internal/buildinfo"
)

// Telemetry is one process's metrics registry and tracing.
type Telemetry struct {
	// Registry is what GET /metrics serves.
	Registry *prometheus.Registry
	// HTTP holds the API's request metrics.
	HTTP *HTTPMetrics

	meters  *sdkmetric.MeterProvider
	tracing *sdktrace.TracerProvider
}

// HTTPMetrics count and time HTTP requests by route template and status.
type HTTPMetrics struct {
	Requests *prometheus.CounterVec
	Duration *prometheus.HistogramVec
}

// New builds a registry with Go/process collectors, HTTP metrics and an
// OpenTelemetry meter provider (for the Temporal SDK) exported into it. When
// otlpEndpoint or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, traces are
// exported over OTLP (see newTracerProvider), or to the exporter given to
// SetSpanExporter.
func New(ctx context.Context, otlpEndpoint string, opts ...Option) (*Telemetry, error) {
	o := options{serviceName: DefaultServiceName}
	for _, opt := range opts {
		opt(&o)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), buildinfo.Collector(), MCPToolPanics, MCPToolCalls, MCPToolDuration, LLMGatewayTokens, FlywheelSignals)
	httpm := &HTTPMetrics{
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gatehouse_http_requests_total",
			Help: "HTTP requests by method, route template and status.",
		}, []string{"method", "route", "status"}),
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gatehouse_http_request_duration_seconds",
			Help:    "HTTP request latency by method, route template and status.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route", "status"}),
	}
	reg.MustRegister(httpm.Requests, httpm.Duration)
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("metrics exporter: %w", err)
	}
	t := &Telemetry{
		Registry: reg,
		HTTP:     httpm,
		meters:   sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter)),
	}
	if exp := spanExporterOverride(); tracingWanted(otlpEndpoint, os.Getenv) || exp != nil {
		tp, err := newTracerProvider(ctx, exp, otlpEndpoint, o.serviceName)
		if err != nil {
			return nil, err
		}
		t.tracing = tp
	}
	return t, nil
}

// TemporalMetrics is the SDK metrics handler feeding the registry, its
// counters exported as Prometheus counters (see monotonicCounters).
func (t *Telemetry) TemporalMetrics() client.MetricsHandler {
	return monotonicCounters{MetricsHandler: temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
		Meter: t.meters.Meter("temporal-sdk-go"),
	}), tagged: newTaggedHandlers()}
}

// Tracing tells whether this process exports traces (an OTLP endpoint or
// an exporter was given); without it no span would be recorded.
func (t *Telemetry) Tracing() bool { return t != nil && t.tracing != nil }

// TemporalInterceptors returns the tracing interceptor when tracing is on.
func (t *Telemetry) TemporalInterceptors() ([]interceptor.ClientInterceptor, error) {
	if t.tracing == nil {
		return nil, nil
	}
	i, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
		Tracer: t.tracing.Tracer("gatehouse"),
	})
	if err != nil {
		return nil, err
	}
	return []interceptor.ClientInterceptor{i}, nil
}

// Shutdown flushes metrics and traces.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	err := t.meters.Shutdown(ctx)
	if t.tracing != nil {
		err = errors.Join(err, t.tracing.Shutdown(ctx))
	}
	return err
}
