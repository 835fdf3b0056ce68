package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// mcpInitialize is a bare initialize request, enough for the host checks.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host-probe","version":"1"}}}`

// A browser page on a foreign origin cannot reach either MCP endpoint, with
// or without a key (the guard runs before authentication), while the
// stack's own origin can: the SDK's own localhost protection checks Host
// only, so this proves rest.GuardHosts is mounted on both.
func TestMCP_ForeignOriginRefusedOnBothEndpoints(t *testing.T) {
	s := Shared(t)
	for _, endpoint := range []string{"/mcp/research", "/mcp/flylab"} {
		for _, token := range []string{s.APIKey, ""} {
			r := s.Do(t, http.MethodPost, endpoint, token, mcpInitialize, "Origin", "http://evil.example.com",
				"Accept", "application/json, text/event-stream")
			if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "forbidden_host") {
				t.Errorf("%s with a foreign Origin (key %v): %d %s, want 403 forbidden_host", endpoint, token != "", r.Status, r.Body)
			}
		}
		r := s.Do(t, http.MethodPost, endpoint, s.APIKey, mcpInitialize, "Origin", s.APIURL,
			"Accept", "application/json, text/event-stream")
		if r.Status != http.StatusOK {
			t.Errorf("%s with the stack's own Origin: %d %s, want 200", endpoint, r.Status, r.Body)
		}
	}
}

// Behind a same-host proxy the api's loopback listener sees the public
// name: GATEHOUSE_PUBLIC_URL's host and GATEHOUSE_MCP_ALLOWED_HOSTS pass,
// a foreign Host still gets 403.
func TestMCP_PublicURLAndAllowListHostsPassBehindAProxy(t *testing.T) {
	s := StartStack(t, StackOptions{Env: map[string]string{
		"GATEHOUSE_PUBLIC_URL": "http://gatehouse.test:8080", "GATEHOUSE_MCP_ALLOWED_HOSTS": "gatehouse.svc,agents.test"}})
	for _, endpoint := range []string{"/mcp/research", "/mcp/flylab"} {
		for host, want := range map[string]int{"gatehouse.test:8080": http.StatusOK, "gatehouse.svc": http.StatusOK,
			"agents.test:443": http.StatusOK, "evil.example.com": http.StatusForbidden} {
			status, body := postWithHost(t, s.APIURL+endpoint, host, s.APIKey)
			if status != want {
				t.Errorf("%s Host %s: %d %s, want %d", endpoint, host, status, body, want)
			}
		}
	}
}

// postWithHost posts an initialize to url with a Host header of host.
func postWithHost(t *testing.T, url, host, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(mcpInitialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(body)
}
