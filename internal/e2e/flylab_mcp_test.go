package e2e

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpToolsDir is where scripts/install-test-tools puts the npm MCP SDK.
func mcpToolsDir() string { return filepath.Join(toolsDir(), "node") }

// TestFlyLab_MCPInteropWithOfficialTypeScriptClient lists the tools and
// runs the whole pipeline with @modelcontextprotocol/sdk over Streamable
// HTTP; the operator approval goes through the operator endpoint.
func TestFlyLab_MCPInteropWithOfficialTypeScriptClient(t *testing.T) {
	runTypeScriptFlyLabClient(t, StartStack(t, StackOptions{}))
}

// tsFlyLabRun is what the official TypeScript client reported.
type tsFlyLabRun struct {
	Tools    []string
	Saved    string
	Progress float64
	// Cancelled is what the client saw of the run it cancelled at its
	// first progress notification, before it ran it again.
	Cancelled map[string]any
}

// runTypeScriptFlyLabClient drives the FlyLab pipeline on s with the
// official MCP TypeScript client and checks the tool list, the saved
// bundle and that run_fly_simulation's progress notifications arrived.
func runTypeScriptFlyLabClient(t *testing.T, s *Stack) tsFlyLabRun {
	t.Helper()
	node, err := exec.LookPath("node")
	dir := mcpToolsDir()
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil || serr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node (%v) or @modelcontextprotocol/sdk under %s (%v) missing; run scripts/install-test-tools", err, dir, serr)
		}
		t.Skip("node or @modelcontextprotocol/sdk not installed (scripts/install-test-tools)")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "mcp-flylab-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// ESM resolves packages from the script's folder, so run it from there.
	script := filepath.Join(dir, "mcp-flylab-client-"+filepath.Base(t.TempDir())+".mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(script) })

	cmd := exec.Command(node, script, s.APIURL+"/mcp/flylab", s.APIKey)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(120 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	var run tsFlyLabRun
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var msg map[string]any
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		switch {
		case msg["tools"] != nil:
			for _, n := range msg["tools"].([]any) {
				run.Tools = append(run.Tools, n.(string))
			}
		case msg["awaiting"] != nil:
			r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+msg["awaiting"].(string)+"/approve",
				s.OperatorToken, map[string]any{"protocol_hash": msg["protocol_hash"]})
			if r.Status != http.StatusOK {
				t.Fatalf("approve: %d %s", r.Status, r.Body)
			}
			_, _ = stdin.Write([]byte("approved\n"))
		case msg["cancelled"] != nil:
			run.Cancelled = msg
		case msg["saved"] != nil:
			run.Saved = msg["saved"].(string)
			run.Progress, _ = msg["progress"].(float64)
			t.Logf("MCP client saved %s; progress notifications received: %v", run.Saved, msg["progress"])
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node client failed: %v\n%s", err, stderr.String())
	}
	want := "analyze_fly_behavior compare_fly_trials design_stimulation_trial draft_fly_hypothesis find_fly_circuits inspect_flylab_state run_fly_simulation save_fly_evidence"
	if strings.Join(run.Tools, " ") != want {
		t.Fatalf("tools/list = %v", run.Tools)
	}
	if !strings.HasPrefix(run.Saved, "bundle_") {
		t.Fatalf("pipeline did not save a bundle: %q\n%s", run.Saved, stderr.String())
	}
	c := run.Cancelled
	if c["cancelled"] != "AbortError" || c["revision_after"] != c["revision_before"] || c["batch_after"] != nil ||
		c["status_after"] != "ready" {
		t.Fatalf("a run cancelled before its commit must reject with AbortError and leave the session as it was: %v", c)
	}
	if run.Progress < 1 {
		t.Fatalf("run_fly_simulation sent no progress notification to the client")
	}
	return run
}
