package e2e

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// conformanceSkipFile lists the suite's scenarios that do not apply to
// Gatehouse, each with its reason.
const conformanceSkipFile = "testdata/mcp-conformance-skip.txt"

// TestMCPConformance_BothEndpoints runs every server scenario of the
// official conformance suite (@modelcontextprotocol/conformance) that
// applies against /mcp/research and /mcp/flylab; a failing scenario fails
// the test. The suite cannot send headers, so it talks to a proxy that adds
// the agent's key and forwards Host and Origin as sent.
func TestMCPConformance_BothEndpoints(t *testing.T) {
	suite := requireNodeTool(t, node22(), filepath.Join(toolsDir(), "conformance", "node_modules",
		"@modelcontextprotocol", "conformance", "dist", "index.js"))
	scenarios := conformanceScenarios(t, suite)
	skip := conformanceSkips(t)
	for name := range skip {
		if !containsStr(scenarios, name) {
			t.Errorf("%s lists %q, which the suite does not have", conformanceSkipFile, name)
		}
	}
	s := Shared(t)
	proxy := bearerProxy(t, s.APIURL, s.APIKey)
	for _, endpoint := range []string{"/mcp/research", "/mcp/flylab"} {
		t.Run(strings.TrimPrefix(endpoint, "/mcp/"), func(t *testing.T) {
			for _, sc := range scenarios {
				if _, ok := skip[sc]; ok {
					continue
				}
				t.Run(sc, func(t *testing.T) { runConformanceScenario(t, suite, proxy+endpoint, sc) })
			}
		})
	}
}

// runConformanceScenario runs one scenario; the suite exits non-zero when
// one of its checks fails.
func runConformanceScenario(t *testing.T, suite nodeTool, url, scenario string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := suite.Command(ctx, "server", "--url", url, "--scenario", scenario)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance scenario %s against %s failed (%v):\n%s", scenario, url, err, out)
	}
	t.Logf("%s: passed", scenario)
}

var scenarioLine = regexp.MustCompile(`^\s+-\s+([a-z0-9-]+)\b`)

// conformanceScenarios asks the suite for its server scenarios.
func conformanceScenarios(t *testing.T, suite nodeTool) []string {
	t.Helper()
	out, err := suite.Command(t.Context(), "list", "--server").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list --server: %v\n%s", err, out)
	}
	var names []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if m := scenarioLine.FindStringSubmatch(sc.Text()); m != nil {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("conformance list --server listed nothing:\n%s", out)
	}
	return names
}

// conformanceSkips reads the non-applicable scenarios: a name, then its
// reason, one per line; # starts a comment. A line without a reason fails.
func conformanceSkips(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(conformanceSkipFile)
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]string{}
	for i, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" {
			t.Fatalf("%s:%d: %q has no reason", conformanceSkipFile, i+1, name)
		}
		skip[name] = strings.TrimSpace(reason)
	}
	return skip
}
