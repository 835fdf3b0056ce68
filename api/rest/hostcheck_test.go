package rest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
)

// guarded serves /mcp/x behind GuardHosts and /v1/x without it, on a real
// loopback listener (so the test sees what a dev stack sees).
func guarded(t *testing.T, p HostPolicy) *httptest.Server {
	t.Helper()
	engine := gin.New()
	g := engine.Group("", GuardHosts(p, "/mcp/x"))
	ok := func(c *gin.Context) { c.Status(http.StatusNoContent) }
	g.POST("/mcp/x", ok)
	g.POST("/v1/x", ok)
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	return srv
}

func TestGuardHosts_LoopbackListenerRefusesForeignHostAndOrigin(t *testing.T) {
	t.Parallel()
	p := NewHostPolicy("https://gatehouse.example.org", []string{"mcp.internal:8443", "http://Agents.Example.NET/"})
	srv := guarded(t, p)
	own := srv.Listener.Addr().String()
	cases := []struct {
		name, path, host, origin string
		want                     int
	}{
		{"own loopback address", "/mcp/x", own, "", http.StatusNoContent},
		{"localhost with a port", "/mcp/x", "localhost:9", "http://localhost:9", http.StatusNoContent},
		{"ipv6 loopback", "/mcp/x", "[::1]:9", "", http.StatusNoContent},
		{"foreign host", "/mcp/x", "evil.example.com", "", http.StatusForbidden},
		{"foreign host with the listener's port", "/mcp/x", "evil.example.com:" + srv.URL[len("http://127.0.0.1:"):], "", http.StatusForbidden},
		{"foreign origin, own host", "/mcp/x", own, "http://evil.example.com", http.StatusForbidden},
		{"null origin", "/mcp/x", own, "null", http.StatusForbidden},
		{"the conformance suite's probe", "/mcp/x", "evil.example.com", "http://evil.example.com", http.StatusForbidden},
		{"public URL host behind a proxy", "/mcp/x", "gatehouse.example.org", "https://gatehouse.example.org", http.StatusNoContent},
		{"public URL host, other case", "/mcp/x", "GateHouse.example.org:443", "", http.StatusNoContent},
		{"allow-list host:port entry", "/mcp/x", "mcp.internal", "", http.StatusNoContent},
		{"allow-list URL entry", "/mcp/x", "agents.example.net:8080", "http://agents.example.net", http.StatusNoContent},
		{"subdomain of an allowed host", "/mcp/x", "evil.gatehouse.example.org", "", http.StatusForbidden},
		{"unguarded route", "/v1/x", "evil.example.com", "http://evil.example.com", http.StatusNoContent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+tc.path, nil)
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close() // read only: a close error loses nothing
			if resp.StatusCode != tc.want {
				t.Fatalf("Host %q Origin %q: %d, want %d", tc.host, tc.origin, resp.StatusCode, tc.want)
			}
		})
	}
}

// With no public URL of its own beyond loopback (the dev default), only
// loopback names pass: the protection the SDK gives a loopback listener.
func TestHostPolicy_DevDefaultAllowsOnlyLoopback(t *testing.T) {
	t.Parallel()
	p := NewHostPolicy("http://127.0.0.1:8080", nil)
	for host, want := range map[string]bool{"127.0.0.1:8080": true, "127.0.0.2": true, "localhost": true,
		"evil.localhost": false, "10.0.0.5:8080": false, "evil.example.com": false, "": false} {
		if got := p.Allows(host); got != want {
			t.Errorf("Allows(%q) = %v, want %v", host, got, want)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/mcp/x", nil)
	req.Host = "evil.example.com"
	var refused *HostRefusedError
	if err := p.Check(req); !errors.As(err, &refused) || refused.Header != "Host" {
		t.Fatalf("Check = %v, want a HostRefusedError on Host", err)
	}
}
