package deploycheck

import (
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
)

// The MCP endpoints refuse a Host that is not loopback, the public URL's
// or allow-listed (DNS-rebinding protection), so an agent in the cluster
// calling the api Service by name would get 403 unless the chart allows
// the Service's names.
func TestManifests_MCPAcceptsTheAPIServiceNames(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		api := m.deployments["gatehouse-api"]
		if api == nil {
			t.Fatalf("%s: no api deployment", set)
		}
		env, err := containerEnv(m, api.Spec.Template.Spec.Containers[0])
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		for name, svc := range m.services {
			if svc.Labels["app.kubernetes.io/component"] != "api" || svc.Labels["gatehouse.io/metrics"] == "true" {
				continue // the metrics Services (api and worker) serve no MCP
			}
			if !slices.Contains(cfg.MCPAllowedHosts, name) {
				t.Errorf("%s: the MCP endpoints would refuse the Service name %s (allowed %v)", set, name, cfg.MCPAllowedHosts)
			}
		}
	}
}
