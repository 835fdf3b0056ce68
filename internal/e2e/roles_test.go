package e2e

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestProductionRoles_MigrateThenAPIOnPostgres runs the production roles the
// way compose and Helm do: the api refuses an unmigrated database, migrate
// applies the versions, then the api serves against Temporal and PostgreSQL
// with the bootstrap operator token.
func TestProductionRoles_MigrateThenAPIOnPostgres(t *testing.T) {
	t.Parallel()
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	s := Shared(t)
	addr := freeAddr(t)
	const bootstrap = "op_bootstrap_token_for_roles_test"
	env := map[string]string{
		"GATEHOUSE_DATABASE_URL":             dbURL,
		"GATEHOUSE_TEMPORAL_ADDRESS":         s.TemporalAddr,
		"GATEHOUSE_HTTP_ADDR":                addr,
		"GATEHOUSE_BLOB_DIR":                 t.TempDir(),
		"GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN": bootstrap,
	}

	early := StartRoleProcess(t, "api", env)
	waitFor(t, 20*time.Second, early.Exited)
	if !strings.Contains(early.Output(), "pending migrations") {
		t.Fatalf("api on an unmigrated database must refuse with a clear error, got:\n%s", early.Output())
	}

	cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Migrate(context.Background(), cfg); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if err := app.Migrate(context.Background(), cfg); err != nil {
		t.Fatalf("a second migrate must be a no-op: %v", err)
	}

	api := StartRoleProcess(t, "api", env)
	base := "http://" + addr
	waitFor(t, 30*time.Second, func() bool {
		r, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		_ = r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	req, _ := http.NewRequest(http.MethodGet, base+"/operator/v1/keys", nil)
	req.Header.Set("Authorization", "Bearer "+bootstrap)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("bootstrap operator token: %d\n%s", resp.StatusCode, api.Output())
	}
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

func waitFor(t testing.TB, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
