package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCP_InspectorCLIListsToolsOnBothEndpoints runs the MCP Inspector's
// command-line mode (@modelcontextprotocol/inspector, the command the
// README shows) with the agent's key as a bearer header against both
// endpoints.
func TestMCP_InspectorCLIListsToolsOnBothEndpoints(t *testing.T) {
	inspector := requireNodeTool(t, node22(), filepath.Join(toolsDir(), "inspector", "node_modules",
		"@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"))
	s := Shared(t)
	for endpoint, want := range map[string]string{"/mcp/research": "workflow.status_and_next", "/mcp/flylab": "inspect_flylab_state"} {
		t.Run(strings.TrimPrefix(endpoint, "/mcp/"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := inspector.Command(ctx, "--cli", s.APIURL+endpoint, "--transport", "http", "--method", "tools/list",
				"--header", "Authorization: Bearer "+s.APIKey)
			// The Inspector keeps a catalog under HOME.
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("inspector --cli tools/list: %v\n%s", err, out)
			}
			var listed struct {
				Tools []struct{ Name string }
			}
			if err := json.Unmarshal(out, &listed); err != nil {
				t.Fatalf("inspector output is not the tools/list result (%v):\n%s", err, out)
			}
			found := false
			for _, tl := range listed.Tools {
				found = found || tl.Name == want
			}
			if !found {
				t.Fatalf("inspector listed %d tools without %s:\n%s", len(listed.Tools), want, out)
			}
			t.Logf("inspector listed %d tools on %s", len(listed.Tools), endpoint)
		})
	}
}
