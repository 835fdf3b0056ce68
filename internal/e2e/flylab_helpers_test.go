package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/contracts"
)

// flyContract is the parsed contract's result and output rules.
type flyContract struct {
	Result struct {
		Success      []string `json:"success_fields"`
		Failure      []string `json:"failure_fields"`
		FailureError []string `json:"failure_error_fields"`
		Codes        []string `json:"domain_error_codes"`
	} `json:"result_contract"`
	Tools []struct {
		Name   string `json:"name"`
		Output struct {
			Required []string `json:"required_data_fields"`
		} `json:"output_contract"`
	} `json:"tools"`
}

func loadFlyContract(t testing.TB) flyContract {
	t.Helper()
	var c flyContract
	if err := json.Unmarshal(contracts.FlyLabContractFile, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// checkEnvelope fails the test unless env carries every field the contract
// requires of a success (including the tool's data fields) or a failure,
// and every provenance path resolves into data.
func (c flyContract) checkEnvelope(t testing.TB, tool string, env map[string]any) {
	t.Helper()
	ok, _ := env["ok"].(bool)
	fields := c.Result.Failure
	if ok {
		fields = c.Result.Success
	}
	for _, f := range fields {
		if _, present := env[f]; !present {
			t.Fatalf("%s envelope lacks %q: %v", tool, f, keys(env))
		}
	}
	if env["tool"] != tool || env["result_version"] != "flylab.tool-result.v3" {
		t.Fatalf("%s envelope names tool %v version %v", tool, env["tool"], env["result_version"])
	}
	if !ok {
		e, _ := env["error"].(map[string]any)
		for _, f := range c.Result.FailureError {
			if _, present := e[f]; !present {
				t.Fatalf("%s error lacks %q: %v", tool, f, e)
			}
		}
		if r, _ := env["recovery"].(map[string]any); r["tool"] != "inspect_flylab_state" {
			t.Fatalf("%s recovery %v", tool, env["recovery"])
		}
		return
	}
	data, _ := env["data"].(map[string]any)
	for _, ct := range c.Tools {
		if ct.Name != tool {
			continue
		}
		for _, f := range ct.Output.Required {
			if _, present := data[f]; !present {
				t.Fatalf("%s data lacks %q: %v", tool, f, keys(data))
			}
		}
	}
	pm, _ := env["provenance_manifest"].(map[string]any)
	entries, _ := pm["entries"].([]any)
	if len(entries) == 0 {
		t.Fatalf("%s has no provenance entries", tool)
	}
	for _, e := range entries {
		path := e.(map[string]any)["path"].(string)
		if !pointerResolves(data, path) {
			t.Fatalf("%s provenance path %q does not resolve", tool, path)
		}
		if labels, _ := e.(map[string]any)["labels"].([]any); len(labels) == 0 {
			t.Fatalf("%s provenance path %q has no labels", tool, path)
		}
	}
}

func pointerResolves(doc any, p string) bool {
	if p == "" {
		return true
	}
	cur := doc
	for _, tok := range strings.Split(p[1:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[tok]; !ok {
			return false
		}
	}
	return true
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// flyTool calls a tool over REST and checks the envelope.
func flyTool(t testing.TB, s *Stack, c flyContract, token, tool string, args any) map[string]any {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/v1/flylab/tools/"+tool, token, args)
	if r.Status != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s", tool, r.Status, truncate(r.Body))
	}
	var env map[string]any
	r.JSON(t, &env)
	c.checkEnvelope(t, tool, env)
	return env
}

func mustOK(t testing.TB, env map[string]any) map[string]any {
	t.Helper()
	if env["ok"] != true {
		t.Fatalf("%v failed: %v", env["tool"], env["error"])
	}
	return env["data"].(map[string]any)
}

func mustCode(t *testing.T, env map[string]any, code string) {
	t.Helper()
	e, _ := env["error"].(map[string]any)
	if env["ok"] != false || e["code"] != code {
		t.Fatalf("%v: want %s, got ok=%v error=%v", env["tool"], code, env["ok"], e)
	}
}

// recordHistory writes a workflow's history for the replay test when
// GATEHOUSE_RECORD_HISTORIES=1.
func recordHistory(t *testing.T, s *Stack, workflowID, name string) {
	t.Helper()
	writeHistory(t, s, workflowID, "flylab/testdata/histories", name)
}
