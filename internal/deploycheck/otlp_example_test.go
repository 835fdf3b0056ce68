package deploycheck

import (
	"strings"
	"testing"
)

// An OTLP endpoint on 4318 is OTLP over HTTP: whenever the chart sets an
// endpoint it names the protocol, and the production example's pair
// agrees (4318 with http/protobuf, 4317 with grpc).
func TestManifests_OTLPEndpointAndProtocolAgree(t *testing.T) {
	for _, set := range valueSets {
		for name, cm := range rendered(t, set).configMaps {
			endpoint, protocol := cm.Data["OTEL_EXPORTER_OTLP_ENDPOINT"], cm.Data["OTEL_EXPORTER_OTLP_PROTOCOL"]
			if endpoint == "" {
				if set == "production" {
					t.Errorf("production ConfigMap %s exports no traces", name)
				}
				continue
			}
			want := ""
			switch trimmed := strings.TrimRight(endpoint, "/"); {
			case strings.HasSuffix(trimmed, ":4318"):
				want = "http/protobuf"
			case strings.HasSuffix(trimmed, ":4317"):
				want = "grpc"
			}
			if protocol == "" || want != "" && protocol != want {
				t.Errorf("%s ConfigMap %s: OTLP endpoint %s with protocol %q, want %q", set, name, endpoint, protocol, want)
			}
		}
	}
}
