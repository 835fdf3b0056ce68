package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/models/modelstest"
)

// run executes the gatehouse command line and returns its output.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out strings.Builder
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func TestHelp_EachSubcommandListsOnlyTheFlagsItReads(t *testing.T) {
	cases := []struct {
		args          []string
		want, wantNot []string
	}{
		{[]string{"migrate", "--help"}, []string{"--database-url", "--database-max-conns", "--log-level", "Example"}, []string{"--http-addr", "--temporal-address", "--dev-api-key"}},
		{[]string{"migrate", "status", "--help"}, []string{"--database-url"}, []string{"--http-addr"}},
		{[]string{"keys", "list", "--help"}, []string{"--database-url"}, []string{"--temporal-address", "--worker-health-addr"}},
		{[]string{"worker", "--help"}, []string{"--worker-health-addr", "--temporal-address", "--sandbox-providers"}, []string{"--dev-api-key", "--llm-upstream-url", "--http-addr", "--bootstrap-operator-token"}},
		{[]string{"api", "--help"}, []string{"--http-addr", "--bootstrap-operator-token", "--llm-upstream-url"}, []string{"--worker-health-addr", "--dev-ui-addr"}},
		{[]string{"dev", "--help"}, []string{"--dev-ui-addr", "--data-dir"}, []string{"--temporal-address", "--worker-health-addr"}},
		{[]string{"healthcheck", "--help"}, []string{"--http-addr", "--timeout"}, []string{"--database-url"}},
		{[]string{"version", "--help"}, nil, []string{"--database-url", "--http-addr"}},
	}
	for _, tc := range cases {
		out, err := run(t, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v lacks %s", tc.args, w)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(out, w+" ") {
				t.Errorf("%v lists %s, which it does not read", tc.args, w)
			}
		}
	}
	if _, err := run(t, "migrate", "--dev-api-key", "x"); err == nil || !strings.Contains(err.Error(), "unknown flag") {
		t.Fatalf("migrate must refuse a flag it does not read, got %v", err)
	}
}

func TestHealthcheck_ExitStatusFollowsTheAnswer(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	if out, err := run(t, "healthcheck", srv.URL+"/healthz"); err != nil || !strings.Contains(out, "200") {
		t.Fatalf("healthy: %q %v", out, err)
	}
	// Without a URL it probes /healthz on --http-addr.
	if _, err := run(t, "healthcheck", "--http-addr", strings.TrimPrefix(srv.URL, "http://")); err != nil {
		t.Fatalf("default URL from --http-addr: %v", err)
	}
	status = http.StatusServiceUnavailable
	if _, err := run(t, "healthcheck", srv.URL+"/healthz"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a 503 must fail the check, got %v", err)
	}
	if _, err := run(t, "healthcheck", srv.URL+"/elsewhere"); err == nil {
		t.Fatal("a 404 must fail the check")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close()
	if _, err := run(t, "healthcheck", "--timeout", "2s", "http://"+closed+"/healthz"); err == nil {
		t.Fatal("nothing listening must fail the check")
	}
}

func TestHealthzURL_WildcardHostsDialLoopback(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":          "http://127.0.0.1:8080/healthz",
		"0.0.0.0:8080":   "http://127.0.0.1:8080/healthz",
		"[::]:8080":      "http://127.0.0.1:8080/healthz",
		"10.0.0.5:80":    "http://10.0.0.5:80/healthz",
		"127.0.0.1:8080": "http://127.0.0.1:8080/healthz",
	} {
		if got := healthzURL(addr); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}

func TestMigrateStatus_ListsPendingThenApplied(t *testing.T) {
	url := modelstest.SchemaURL(t)
	if url == "" {
		t.Skip("GATEHOUSE_TEST_DATABASE_URL not set (CI sets it)")
	}
	out, err := run(t, "migrate", "status", "--database-url", url)
	if err != nil {
		t.Fatalf("status on an empty schema: %v", err)
	}
	if strings.Contains(out, "applied ") || !strings.Contains(out, "0 applied") || !strings.Contains(out, "pending  ") {
		t.Fatalf("an empty schema has every migration pending:\n%s", out)
	}
	if _, err := run(t, "migrate", "--database-url", url); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "migrate", "status", "--database-url", url)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, ", 0 pending") || strings.Contains(out, "pending  ") {
		t.Fatalf("after migrate nothing is pending:\n%s", out)
	}
}
