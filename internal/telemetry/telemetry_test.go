package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestRedact_HidesEveryCredentialKind(t *testing.T) {
	t.Parallel()
	in := "key mk_0123456789abcdef op_aaaaaaaaaaaa cap_bbbbbbbbbbbb lt_cccccccccccc gw_dddddddddddd rk_eeeeeeeeeeee plain mk_short"
	out := Redact(in)
	for _, secret := range []string{"0123456789abcdef", "aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc", "dddddddddddd", "eeeeeeeeeeee"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q survived redaction: %s", secret, out)
		}
	}
	if !strings.Contains(out, "mk_short") {
		t.Errorf("short non-secret text changed: %s", out)
	}
}

func TestLogger_RedactsSecretAttributesAndValues(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := NewLogger(&buf, "info")
	log.Info("call", "authorization", "Bearer anything", "note", "used op_0123456789abcdef here", "n", 3)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("not JSON: %s", buf.String())
	}
	if line["authorization"] != "[REDACTED]" || strings.Contains(buf.String(), "0123456789abcdef") {
		t.Fatalf("secret leaked: %s", buf.String())
	}
	if line["n"].(float64) != 3 {
		t.Fatalf("other attributes must pass through: %s", buf.String())
	}
}

func TestLogger_LevelFilters(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	NewLogger(&buf, "warn").Info("hidden")
	if buf.Len() != 0 {
		t.Fatalf("info logged at warn level: %s", buf.String())
	}
}

func TestTelemetry_TracingInterceptorOnlyWithEndpoint(t *testing.T) {
	off, err := New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if is, _ := off.TemporalInterceptors(); len(is) != 0 {
		t.Fatal("no endpoint must mean no tracing interceptor")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	on, err := New(context.Background(), "http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = on.Shutdown(context.Background()) }()
	if is, err := on.TemporalInterceptors(); err != nil || len(is) != 1 {
		t.Fatalf("want one tracing interceptor, got %d (%v)", len(is), err)
	}
}

func TestTelemetry_TemporalMetricsReachTheRegistry(t *testing.T) {
	t.Parallel()
	tel, err := New(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	tel.TemporalMetrics().Counter("temporal_test_counter").Inc(2)
	families, err := tel.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "temporal_test_counter") {
			return
		}
	}
	t.Fatal("SDK metric not exported to the Prometheus registry")
}
