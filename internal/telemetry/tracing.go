package telemetry

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// DefaultServiceName names the traced service unless OTEL_SERVICE_NAME
// does (the chart sets gatehouse-api and gatehouse-worker).
const DefaultServiceName = "gatehouse"

var exporterOverride struct {
	sync.Mutex
	exp sdktrace.SpanExporter
}

// SetSpanExporter makes every Telemetry built afterwards trace into exp,
// endpoint or not (in-process tests with an in-memory exporter); nil
// restores the OTLP exporter.
func SetSpanExporter(exp sdktrace.SpanExporter) {
	exporterOverride.Lock()
	defer exporterOverride.Unlock()
	exporterOverride.exp = exp
}

func spanExporterOverride() sdktrace.SpanExporter {
	exporterOverride.Lock()
	defer exporterOverride.Unlock()
	return exporterOverride.exp
}

// newTracerProvider exports spans over OTLP and installs the provider and
// the W3C trace-context propagator globally. Like the SDK's own exporters
// (which read OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _INSECURE, …), it
// follows OpenTelemetry's variables rather than Gatehouse's configuration:
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL picks
// grpc (default, port 4317) or http/protobuf (port 4318); OTEL_SERVICE_NAME
// and OTEL_RESOURCE_ATTRIBUTES describe the resource.
func newTracerProvider(ctx context.Context, exp sdktrace.SpanExporter) (*sdktrace.TracerProvider, error) {
	if exp == nil {
		var err error
		if exp, err = otlpExporter(ctx, otlpProtocol(os.Getenv)); err != nil {
			return nil, fmt.Errorf("otlp exporter: %w", err)
		}
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(DefaultServiceName)), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp, nil
}

// otlpProtocol is the OTLP protocol OpenTelemetry's variables ask for.
func otlpProtocol(getenv func(string) string) string {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
	}
	return "grpc"
}

func otlpExporter(ctx context.Context, protocol string) (sdktrace.SpanExporter, error) {
	switch protocol {
	case "grpc":
		return otlptracegrpc.New(ctx)
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	default:
		return nil, fmt.Errorf("OTLP protocol %q: use grpc or http/protobuf", protocol)
	}
}
