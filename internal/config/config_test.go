package config

import (
	"strings"
	"testing"
	"time"
)

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestFromLookup_Defaults(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != "127.0.0.1:8080" || c.DevTemporalAddr != "127.0.0.1:7233" || c.DevUIAddr != "127.0.0.1:8233" {
		t.Fatalf("unexpected addresses %+v", c)
	}
	if c.PublicURL != "http://127.0.0.1:8080" {
		t.Fatalf("public url %q", c.PublicURL)
	}
	if !c.Features.Storage || !c.Features.Sandboxes || c.Features.Tracking {
		t.Fatalf("feature defaults %+v", c.Features)
	}
	if c.WorkerStopTimeout != 30*time.Second {
		t.Fatalf("a stopping worker must drain in-flight activities by default: WorkerStopTimeout %s", c.WorkerStopTimeout)
	}
}

func TestFromLookup_OverridesAndPublicURLFromWildcardAddr(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(map[string]string{
		"GATEHOUSE_HTTP_ADDR":           ":9000",
		"GATEHOUSE_FEATURE_TRACKING":    "true",
		"GATEHOUSE_SHUTDOWN_TIMEOUT":    "3s",
		"GATEHOUSE_WORKER_STOP_TIMEOUT": "45s",
		"GATEHOUSE_DATA_DIR":            "/tmp/gh",
		"GATEHOUSE_MAX_BODY_BYTES":      "1024",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.WorkerStopTimeout != 45*time.Second {
		t.Fatalf("WorkerStopTimeout %s, want 45s", c.WorkerStopTimeout)
	}
	if c.PublicURL != "http://127.0.0.1:9000" || !c.Features.Tracking || c.ShutdownTimeout != 3*time.Second || c.BlobDir != "/tmp/gh/blobs" || c.MaxBodyBytes != 1024 {
		t.Fatalf("unexpected %+v", c)
	}
}

func TestFromLookup_BadValuesAreNamed(t *testing.T) {
	t.Parallel()
	for name, val := range map[string]string{
		"GATEHOUSE_FEATURE_STORAGE":     "maybe",
		"GATEHOUSE_MAX_BODY_BYTES":      "lots",
		"GATEHOUSE_SHUTDOWN_TIMEOUT":    "soon",
		"GATEHOUSE_WORKER_STOP_TIMEOUT": "-1s",
	} {
		_, err := FromLookup(lookup(map[string]string{name: val}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: want an error naming the variable, got %v", name, val, err)
		}
	}
}

func TestVars_NamesAreUniqueAndPrefixed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, n := range Names() {
		if seen[n] {
			t.Errorf("duplicate %s", n)
		}
		seen[n] = true
		if !strings.HasPrefix(n, "GATEHOUSE_") && !strings.HasPrefix(n, "OTEL_") {
			t.Errorf("%s lacks the GATEHOUSE_ prefix", n)
		}
	}
}

func TestFromLookup_MCPAllowedHostsIsACommaList(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(nil))
	if err != nil || c.MCPAllowedHosts != nil {
		t.Fatalf("default MCPAllowedHosts %q (%v), want none", c.MCPAllowedHosts, err)
	}
	c, err = FromLookup(lookup(map[string]string{"GATEHOUSE_MCP_ALLOWED_HOSTS": " mcp.internal:8443, ,gatehouse.svc "}))
	if err != nil || strings.Join(c.MCPAllowedHosts, "|") != "mcp.internal:8443|gatehouse.svc" {
		t.Fatalf("MCPAllowedHosts %q (%v)", c.MCPAllowedHosts, err)
	}
}

// The api's metrics listener is opt-in (the image and the chart set it),
// so two api processes on one host never race for a fixed port.
func TestFromLookup_MetricsAddrIsReadAndOffByDefault(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(nil))
	if err != nil || c.MetricsAddr != "" {
		t.Fatalf("default MetricsAddr %q (%v), want none", c.MetricsAddr, err)
	}
	c, err = FromLookup(lookup(map[string]string{"GATEHOUSE_METRICS_ADDR": "0.0.0.0:9090"}))
	if err != nil || c.MetricsAddr != "0.0.0.0:9090" {
		t.Fatalf("MetricsAddr %q (%v)", c.MetricsAddr, err)
	}
}
