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

// Service names of the roles, the resource's service.name unless
// OTEL_SERVICE_NAME names another; DefaultServiceName is a process that
// is several roles at once (`gatehouse dev`).
const (
	DefaultServiceName = "gatehouse"
	APIServiceName     = "gatehouse-api"
	WorkerServiceName  = "gatehouse-worker"
)

// Option adjusts New.
type Option func(*options)

type options struct{ serviceName string }

// WithServiceName sets the default service.name of the traces
// (OTEL_SERVICE_NAME still wins).
func WithServiceName(name string) Option {
	return func(o *options) { o.serviceName = name }
}

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

// tracingWanted reports whether traces are exported: an OTLP endpoint is
// configured (endpoint, from OTEL_EXPORTER_OTLP_ENDPOINT or its flag) or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.
func tracingWanted(endpoint string, getenv func(string) string) bool {
	return endpoint != "" || strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) != ""
}

// newTracerProvider exports spans over OTLP and installs the provider and
// the W3C trace-context propagator globally. It follows OpenTelemetry's
// variables: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL picks http/protobuf (the specification's
// default, port 4318) or grpc (port 4317);
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) wins over endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT, to which http/protobuf appends
// /v1/traces); the exporters read _HEADERS, _CERTIFICATE, _TIMEOUT, … on
// their own; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES describe the
// resource, whose service.name is serviceName otherwise.
func newTracerProvider(ctx context.Context, exp sdktrace.SpanExporter, endpoint, serviceName string) (*sdktrace.TracerProvider, error) {
	if exp == nil {
		var err error
		if exp, err = otlpExporter(ctx, otlpProtocol(os.Getenv), endpoint, os.Getenv); err != nil {
			return nil, fmt.Errorf("otlp exporter: %w", err)
		}
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(serviceName)), resource.WithFromEnv())
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
	return "http/protobuf"
}

// otlpExporter builds the exporter of protocol. endpoint is passed on
// explicitly (it may come from a flag rather than the environment) unless
// the signal's own OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, which the
// exporter then reads itself.
func otlpExporter(ctx context.Context, protocol, endpoint string, getenv func(string) string) (sdktrace.SpanExporter, error) {
	explicit := endpoint != "" && strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) == ""
	switch protocol {
	case "grpc":
		var opts []otlptracegrpc.Option
		if explicit {
			opts = append(opts, otlptracegrpc.WithEndpointURL(endpoint))
		}
		return otlptracegrpc.New(ctx, opts...)
	case "http/protobuf":
		var opts []otlptracehttp.Option
		if explicit {
			opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimRight(endpoint, "/")+"/v1/traces"))
		}
		return otlptracehttp.New(ctx, opts...)
	default:
		return nil, fmt.Errorf("OTLP protocol %q: use grpc or http/protobuf", protocol)
	}
}
