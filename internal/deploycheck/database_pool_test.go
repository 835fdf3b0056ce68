package deploycheck

import (
	"strconv"
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
)

// temporalConnections is what a Temporal cluster's default and visibility
// pools hold on the same PostgreSQL (the production topology's 20 + 4).
const temporalConnections = 24

// Every api and worker pod opens its own pool; rendered as the chart does,
// their sum next to Temporal's must fit under PostgreSQL's default
// max_connections (100) with room left for administrative sessions — the
// connection exhaustion (SQLSTATE 53300) two api replicas caused before
// the pool was bounded.
func TestManifests_DatabasePoolsFitUnderMaxConnections(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		total := temporalConnections
		for _, name := range []string{"gatehouse-api", "gatehouse-worker"} {
			d := m.deployments[name]
			if d == nil {
				t.Fatalf("%s: no deployment %s", set, name)
			}
			env, err := containerEnv(m, d.Spec.Template.Spec.Containers[0])
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			if err != nil {
				t.Fatalf("%s %s: %v", set, name, err)
			}
			if env["GATEHOUSE_DATABASE_MAX_CONNS"] != strconv.Itoa(cfg.DatabasePool.MaxConns) {
				t.Errorf("%s %s: the pool size is not rendered (GATEHOUSE_DATABASE_MAX_CONNS=%q)", set, name, env["GATEHOUSE_DATABASE_MAX_CONNS"])
			}
			replicas := int32(1)
			if d.Spec.Replicas != nil {
				replicas = *d.Spec.Replicas
			}
			total += int(replicas) * cfg.DatabasePool.MaxConns
		}
		if total > 90 {
			t.Errorf("%s: api and worker pods and Temporal hold up to %d PostgreSQL connections, over the default max_connections' budget of 90", set, total)
		}
	}
}
