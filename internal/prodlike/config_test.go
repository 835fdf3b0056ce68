package prodlike

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// Temporal stores membership ports as smallint: a port of 32768 or more
// kills the server at start.
func TestFreePorts_DistinctAndBelowSmallint(t *testing.T) {
	t.Parallel()
	ports, err := freePorts(temporalPortCount)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < portLow || p >= 32768 || seen[p] {
			t.Fatalf("ports %v: each must be distinct and in [%d, 32768)", ports, portLow)
		}
		seen[p] = true
	}
}

func TestWriteTemporalConfig_EveryPortAndBothStores(t *testing.T) {
	t.Parallel()
	ports, err := freePorts(temporalPortCount)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, err := writeTemporalConfig(dir, temporalConfig{Ports: newTemporalPorts(ports), Host: "127.0.0.1", Port: "5432",
		User: "postgres", Database: "x_temporal", Visibility: "x_temporal_vis", Shards: 4, MaxConns: 10, VisibilityMaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(raw)
	for _, p := range ports {
		if !strings.Contains(yaml, strconv.Itoa(p)) {
			t.Errorf("port %d is not in the configuration", p)
		}
	}
	for _, want := range []string{"databaseName: x_temporal\n", "databaseName: x_temporal_vis\n", "numHistoryShards: 4", "maxConns: 10", "maxConns: 2", dir} {
		if !strings.Contains(yaml, want) {
			t.Errorf("configuration lacks %q:\n%s", want, yaml)
		}
	}
}

func TestOptions_RefuseWhatCannotWork(t *testing.T) {
	t.Parallel()
	ok := Options{Dir: "d", ModuleDir: "m", PostgresURL: "postgres://x", Name: "stack_1", Gatehouse: func(string) Command { return Command{} }}
	if err := ok.defaults(); err != nil || ok.APIs != 2 || ok.Workers != 2 || ok.HistoryShards != 4 {
		t.Fatalf("defaults: %v %+v", err, ok)
	}
	for name, o := range map[string]Options{
		"no dir":          {ModuleDir: "m", PostgresURL: "postgres://x", Name: "a", Gatehouse: ok.Gatehouse},
		"unsafe name":     {Dir: "d", ModuleDir: "m", PostgresURL: "postgres://x", Name: "a; DROP", Gatehouse: ok.Gatehouse},
		"no role command": {Dir: "d", ModuleDir: "m", PostgresURL: "postgres://x", Name: "a"},
	} {
		if err := o.defaults(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := newPostgres("mysql://x"); err == nil {
		t.Error("a non-PostgreSQL URL was accepted")
	}
}
