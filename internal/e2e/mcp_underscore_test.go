package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMCP_UnderscoreNamesPerConnectionDriveAnExperiment: a client that
// rejects dotted names asks /mcp/research?names=underscore and drives an
// experiment to complete with the official TypeScript client through
// workflow_status_and_next and the other underscore names, while a plain
// connection on the same deployment still lists the dotted names only.
func TestMCP_UnderscoreNamesPerConnectionDriveAnExperiment(t *testing.T) {
	dir := mcpToolsDir()
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil || serr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node (%v) or @modelcontextprotocol/sdk under %s (%v) missing; run scripts/install-test-tools", err, dir, serr)
		}
		t.Skip("node or @modelcontextprotocol/sdk not installed (scripts/install-test-tools)")
	}
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	projectID := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-underscore")}), "project", "id"))

	dotted := listedToolNames(t, connectResearch(t, s, s.APIKey))
	if !slices.Contains(dotted, "workflow.status_and_next") || slices.Contains(dotted, "workflow_status_and_next") {
		t.Fatalf("a plain connection must list the dotted names only: %v", dotted)
	}
	if r := s.Do(t, http.MethodPost, "/mcp/research?names=camel", s.APIKey, `{}`); r.Status != http.StatusBadRequest ||
		!strings.Contains(string(r.Body), "names must be") {
		t.Fatalf("?names=camel: %d %s, want 400 naming the forms", r.Status, r.Body)
	}

	lines := runResearchUnderscoreScript(t, node, dir, s.APIURL+"/mcp/research?names=underscore", s.APIKey, projectID,
		mintAgentKey(t, s, uniq("underscore-reviewer"), true))
	var listed struct{ Tools []string }
	var outcome struct {
		ExperimentID string `json:"experiment_id"`
		Status       string
		Seen         []string
	}
	if len(lines) != 2 || json.Unmarshal(lines[0], &listed) != nil || json.Unmarshal(lines[1], &outcome) != nil {
		t.Fatalf("script printed %q", lines)
	}
	want := make([]string, len(dotted))
	for i, n := range dotted {
		want[i] = strings.ReplaceAll(n, ".", "_")
	}
	slices.Sort(want)
	if strings.Join(listed.Tools, " ") != strings.Join(want, " ") {
		t.Fatalf("?names=underscore listed %v, want exactly the underscore form of every tool %v", listed.Tools, want)
	}
	if outcome.Status != "complete" || !slices.Contains(outcome.Seen, "launch_experiment_reviewer") {
		t.Fatalf("experiment driven through underscore names ended %q after %v", outcome.Status, outcome.Seen)
	}
	t.Logf("driven through underscore names: %v", outcome.Seen)
	st := op.must("workflow.status_and_next", map[string]any{"project_id": projectID, "experiment_id": outcome.ExperimentID})
	if dig(st, "workflow", "status") != "complete" {
		t.Fatalf("the dotted read disagrees: %v", st["workflow"])
	}
}

// listedToolNames is tools/list of a Go client session.
func listedToolNames(t *testing.T, a *researchAgent) []string {
	t.Helper()
	res, err := a.sess.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// runResearchUnderscoreScript runs testdata/mcp-research-underscore.mjs
// from the SDK's folder (ESM resolves packages from the script's folder)
// and returns the JSON lines it printed.
func runResearchUnderscoreScript(t *testing.T, node, dir string, args ...string) [][]byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "mcp-research-underscore.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "mcp-research-underscore-"+filepath.Base(t.TempDir())+".mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(script) })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client failed: %v\n%s\n%s", err, out, stderr.String())
	}
	var lines [][]byte
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if json.Valid(sc.Bytes()) {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
	}
	return lines
}
