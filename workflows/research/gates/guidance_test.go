package gates

import (
	"fmt"
	"strings"
	"testing"
)

// TestGuidance_WhatItDescribesPasses uploads, for every gated role, a
// document built only from what the guidance says (its sections, its
// limits), and checks the guidance names every limit the validator has.
func TestGuidance_WhatItDescribesPasses(t *testing.T) {
	for role, tpl := range Templates {
		g := GuidanceOf(role)
		if !strings.Contains(g, fmt.Sprint(MaxGatedArtifactBytes)) {
			t.Errorf("%s: guidance %q omits the size limit", role, g)
		}
		if len(tpl.Sections) == 0 {
			continue
		}
		var doc strings.Builder
		for _, s := range tpl.Sections {
			if !strings.Contains(g, `"## `+s+`"`) {
				t.Errorf("%s: guidance omits section %s: %q", role, s, g)
			}
			fmt.Fprintf(&doc, "## %s\nwritten by the agent\n\n", s)
		}
		if p := CheckArtifact(role, []byte(doc.String())); len(p) != 0 {
			t.Errorf("%s: a document with exactly the sections the guidance names fails: %v", role, p)
		}
		if !strings.Contains(g, Placeholder) {
			t.Errorf("%s: guidance does not say %s lines must go", role, Placeholder)
		}
		if p := CheckArtifact(role, []byte(tpl.Text)); len(p) == 0 {
			t.Errorf("%s: the raw template passes, so the guidance to replace its %s lines is wrong", role, Placeholder)
		}
	}
	g := GuidanceOf(string(EvGraph))
	if !strings.Contains(g, fmt.Sprintf("1 to %d nodes", MaxGraphNodes)) || !strings.Contains(g, "DAG") {
		t.Fatalf("graph guidance %q", g)
	}
	nodes := make([]string, MaxGraphNodes)
	for i := range nodes {
		nodes[i] = fmt.Sprintf(`{"id":"n%d","label":"l"}`, i)
	}
	if p := CheckArtifact(string(EvGraph), []byte(`{"nodes":[`+strings.Join(nodes, ",")+`],"edges":[{"from":"n0","to":"n1"}]}`)); len(p) != 0 {
		t.Fatalf("a graph of the guidance's maximum size fails: %v", p)
	}
	if p := CheckArtifact(string(EvResult), []byte(`{"accuracy": 0.9}`)); len(p) != 0 || !strings.Contains(GuidanceOf(string(EvResult)), "JSON object") {
		t.Fatalf("result guidance/check disagree: %v", p)
	}
}
