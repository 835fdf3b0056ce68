package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// A browser page on a foreign origin cannot reach either MCP endpoint, with
// or without a key (the guard runs before authentication), while the
// stack's own origin can: the SDK's own localhost protection checks Host
// only, so this proves rest.GuardHosts is mounted on both.
func TestMCP_ForeignOriginRefusedOnBothEndpoints(t *testing.T) {
	s := Shared(t)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"origin-probe","version":"1"}}}`
	for _, endpoint := range []string{"/mcp/research", "/mcp/flylab"} {
		for _, token := range []string{s.APIKey, ""} {
			r := s.Do(t, http.MethodPost, endpoint, token, initialize, "Origin", "http://evil.example.com",
				"Accept", "application/json, text/event-stream")
			if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "forbidden_host") {
				t.Errorf("%s with a foreign Origin (key %v): %d %s, want 403 forbidden_host", endpoint, token != "", r.Status, r.Body)
			}
		}
		r := s.Do(t, http.MethodPost, endpoint, s.APIKey, initialize, "Origin", s.APIURL,
			"Accept", "application/json, text/event-stream")
		if r.Status != http.StatusOK {
			t.Errorf("%s with the stack's own Origin: %d %s, want 200", endpoint, r.Status, r.Body)
		}
	}
}
