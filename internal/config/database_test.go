package config

import (
	"testing"
	"time"
)

func TestFromLookup_DatabasePoolDefaultsFitTwoAPIsAndTwoWorkersNextToTemporal(t *testing.T) {
	c, err := FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	// 2 api + 2 worker replicas and the production topology's Temporal
	// pools (24) must fit under PostgreSQL's default max_connections (100),
	// with room for administrative sessions.
	if total := 4*c.DatabasePool.MaxConns + 24; total > 90 || c.DatabasePool.MaxIdleConns > c.DatabasePool.MaxConns {
		t.Fatalf("default pool %+v: four replicas and Temporal hold %d connections", c.DatabasePool, total)
	}
}

func TestFromLookup_DatabasePoolFromEnvironment(t *testing.T) {
	env := map[string]string{"GATEHOUSE_DATABASE_MAX_CONNS": "8", "GATEHOUSE_DATABASE_MAX_IDLE_CONNS": "2",
		"GATEHOUSE_DATABASE_CONN_MAX_LIFETIME": "5m"}
	c, err := FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if want := (DatabasePool{MaxConns: 8, MaxIdleConns: 2, ConnMaxLifetime: 5 * time.Minute}); c.DatabasePool != want {
		t.Fatalf("pool %+v, want %+v", c.DatabasePool, want)
	}
	env["GATEHOUSE_DATABASE_MAX_CONNS"] = "many"
	if _, err := FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err == nil {
		t.Fatal("a non-integer pool size was accepted")
	}
}
