package research

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/models/platform"
)

func TestParseMemoryMB_UnitsAndRefusals(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{{"512Mi", 512, true}, {"512M", 512, true}, {"4Gi", 4096, true}, {"1.5G", 1536, true}, {"256", 256, true},
		{"", 0, false}, {"-1Gi", 0, false}, {"lots", 0, false}, {"4Ti", 0, false}} {
		got, ok := parseMemoryMB(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseMemoryMB(%q) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOutputName_FitsTheStorageNameAlphabet(t *testing.T) {
	for _, p := range []string{"results/metrics.json", "./a b/c:d.txt", strings.Repeat("deep/", 80) + "x.bin", "..hidden"} {
		n := outputName("sbx_0123", p)
		if !storageName.MatchString(n) {
			t.Errorf("outputName(%q) = %q is not a storage name", p, n)
		}
	}
	if n := outputName("sbx_1", "results/metrics.json"); n != "sbx_1-results_metrics.json" {
		t.Errorf("got %q", n)
	}
}

func TestSandboxTools_SchemaRefusesOverlongExtendAndEmptyPaths(t *testing.T) {
	s := newTestService(t)
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	for _, tc := range []struct{ tool, args, pointer string }{
		{"sandbox.extend", `{"project_id":"p","seconds":1801}`, "/seconds"},
		{"sandbox.pull_outputs", `{"project_id":"p","paths":[]}`, "/paths"},
		{"sandbox.runs", `{"project_id":"p","wait_seconds":-1}`, "/wait_seconds"},
		{"sandbox.attach", `{"project_id":"p","experiment_id":"e"}`, ""},
	} {
		_, terr := s.Invoke(context.Background(), agent, tc.tool, json.RawMessage(tc.args))
		if terr == nil || terr.Code != "invalid_input" || tc.pointer != "" && terr.Pointer != tc.pointer {
			t.Errorf("%s %s: %+v", tc.tool, tc.args, terr)
		}
	}
	if _, terr := s.Invoke(context.Background(), agent, "sandbox.health", nil); terr == nil || terr.Reason != "tool_visibility_forbidden" {
		t.Errorf("sandbox.health with an agent key: %+v", terr)
	}
}
