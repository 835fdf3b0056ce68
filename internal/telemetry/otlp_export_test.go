package telemetry

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP collector: it records the path and the
// decoded spans of every export.
type otlpReceiver struct {
	mu    sync.Mutex
	paths []string
	spans map[string]string // span name → resource service.name
}

func (rc *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	raw, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(raw, &req)
	}
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not OTLP protobuf", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.paths = append(rc.paths, r.URL.Path)
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				rc.spans[sp.GetName()] = service
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

func startReceiver(t *testing.T) (*otlpReceiver, string) {
	t.Helper()
	rc := &otlpReceiver{spans: map[string]string{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

// unsetOTelEnv clears the OpenTelemetry variables a developer's shell may
// carry, for the rest of the test.
func unsetOTelEnv(t *testing.T) {
	for _, k := range []string{"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_COMPRESSION"} {
		t.Setenv(k, "")
		_ = os.Unsetenv(k)
	}
}

// exportOneSpan builds a Telemetry as a role does, ends one span and
// flushes it through the exporter.
func exportOneSpan(t *testing.T, endpoint, name string, opts ...Option) {
	t.Helper()
	tel, err := New(context.Background(), endpoint, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if tel.tracing == nil {
		t.Fatal("tracing is off")
	}
	_, span := tel.tracing.Tracer("test").Start(context.Background(), name)
	span.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatalf("flush: %v", err)
	}
}

// The production example points OTEL_EXPORTER_OTLP_ENDPOINT at a
// collector's 4318 with http/protobuf: spans arrive at <endpoint>/v1/traces
// as OTLP protobuf, under the role's service name.
func TestOTLPExport_HTTPProtobufReachesTheCollectorUnderTheRoleName(t *testing.T) {
	unsetOTelEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	rc, url := startReceiver(t)
	exportOneSpan(t, url, "api-span", WithServiceName(APIServiceName))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.paths) == 0 || rc.paths[0] != "/v1/traces" {
		t.Fatalf("export paths %v, want /v1/traces", rc.paths)
	}
	if got, ok := rc.spans["api-span"]; !ok || got != APIServiceName {
		t.Fatalf("spans received %v, want api-span from %s", rc.spans, APIServiceName)
	}
}

// With no protocol set, OTLP goes over http/protobuf (the specification's
// default), so an endpoint on 4318 works without further settings.
func TestOTLPExport_DefaultProtocolIsHTTPProtobuf(t *testing.T) {
	unsetOTelEnv(t)
	rc, url := startReceiver(t)
	exportOneSpan(t, url+"/", "worker-span", WithServiceName(WorkerServiceName))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.spans["worker-span"] != WorkerServiceName || rc.paths[0] != "/v1/traces" {
		t.Fatalf("paths %v spans %v", rc.paths, rc.spans)
	}
}

// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT alone turns tracing on and is used as
// is; OTEL_SERVICE_NAME wins over the role's name.
func TestOTLPExport_TracesEndpointAloneIsUsedAsIs(t *testing.T) {
	unsetOTelEnv(t)
	rc, url := startReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url+"/collector/traces")
	t.Setenv("OTEL_SERVICE_NAME", "gatehouse-api-canary")
	exportOneSpan(t, "", "canary-span", WithServiceName(APIServiceName))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.paths) == 0 || rc.paths[0] != "/collector/traces" || rc.spans["canary-span"] != "gatehouse-api-canary" {
		t.Fatalf("paths %v spans %v", rc.paths, rc.spans)
	}
}
