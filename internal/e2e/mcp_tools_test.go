package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// nodeTool is an npm package scripts/install-test-tools installs into the
// tools cache, run with a given node binary.
type nodeTool struct {
	// Node is the node binary that runs it.
	Node string
	// Main is the package's entry script.
	Main string
}

// node22 is the Node 22 binary from the npm package node@22 (the
// conformance suite needs Node ≥ 22; the system node may be older).
func node22() string {
	return filepath.Join(toolsDir(), "node22", "node_modules", "node", "bin", "node")
}

// requireNodeTool finds an installed npm tool: it skips the test outside CI
// when the tool is missing and fails it in CI.
func requireNodeTool(t *testing.T, node, main string) nodeTool {
	t.Helper()
	for _, p := range []string{node, main} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s missing (%v); run scripts/install-test-tools", p, err)
			}
			t.Skipf("%s not installed (scripts/install-test-tools)", p)
		}
	}
	return nodeTool{Node: node, Main: main}
}

// Command runs the tool with args, killed when ctx ends.
func (n nodeTool) Command(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, n.Node, append([]string{n.Main}, args...)...)
}

// bearerProxy is a reverse proxy in front of api that adds the agent's
// bearer token, for MCP tools that cannot send headers. It forwards the
// client's Host and Origin untouched, as a production proxy does, so the
// api's DNS-rebinding protection sees what the client sent.
func bearerProxy(t *testing.T, api, token string) string {
	t.Helper()
	target, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = pr.In.Host
		pr.Out.Header.Set("Authorization", "Bearer "+token)
	}}
	srv := httptest.NewServer(http.HandlerFunc(proxy.ServeHTTP))
	t.Cleanup(srv.Close)
	return srv.URL
}
