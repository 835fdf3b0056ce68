package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func TestLogger_RecordsCarryTheTraceAndSpanOfTheirContext(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := NewLogger(&buf, "info")
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	log.With("component", "test").InfoContext(ctx, "traced")
	log.Info("untraced")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	var traced, untraced map[string]any
	if len(lines) != 2 || json.Unmarshal(lines[0], &traced) != nil || json.Unmarshal(lines[1], &untraced) != nil {
		t.Fatalf("want two JSON lines: %s", buf.String())
	}
	if traced["trace_id"] != tid.String() || traced["span_id"] != sid.String() || traced["component"] != "test" {
		t.Fatalf("traced record: %v", traced)
	}
	if _, has := untraced["trace_id"]; has {
		t.Fatalf("a record without a span has no trace_id: %v", untraced)
	}
}

func TestOTLPProtocol_FollowsOpenTelemetryVariables(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "http/protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "grpc"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, "http/protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, "http/protobuf"},
	}
	for _, tc := range cases {
		if got := otlpProtocol(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
	}
	for _, p := range []string{"grpc", "http/protobuf"} {
		exp, err := otlpExporter(context.Background(), p, "http://127.0.0.1:1", func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		_ = exp.Shutdown(context.Background())
	}
	if _, err := otlpExporter(context.Background(), "http/json", "", func(string) string { return "" }); err == nil {
		t.Fatal("an unsupported protocol must be refused, not silently replaced")
	}
}

func TestTracing_ServiceNameAndResourceAttributesFromTheEnvironment(t *testing.T) {
	t.Setenv("OTEL_SERVICE_NAME", "gatehouse-worker")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=staging")
	exp := tracetest.NewInMemoryExporter()
	tp, err := newTracerProvider(context.Background(), exp, "", APIServiceName)
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("test").Start(context.Background(), "work")
	span.End()
	if err := tp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	_ = tp.Shutdown(context.Background())
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	attrs := map[string]string{}
	for _, kv := range spans[0].Resource.Attributes() {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	if attrs["service.name"] != "gatehouse-worker" || attrs["deployment.environment"] != "staging" {
		t.Fatalf("resource %v", attrs)
	}
}
