package reflectgates

import (
	"fmt"
	"strings"
	"testing"
)

// TestGuidance_WhatItDescribesPasses builds each reflection artifact from
// what its guidance says and uploads it to the check; the change spec's
// guidance lists exactly the values the check accepts.
func TestGuidance_WhatItDescribesPasses(t *testing.T) {
	for _, role := range []string{string(EvLensDocs), string(EvReflectionDoc)} {
		g := GuidanceOf(role)
		var doc strings.Builder
		for _, s := range Templates[role].sections {
			if !strings.Contains(g, `"## `+s+`"`) {
				t.Errorf("%s: guidance omits section %s", role, s)
			}
			fmt.Fprintf(&doc, "## %s\nwritten by a lens\n", s)
		}
		if p := CheckArtifact(role, []byte(doc.String())); len(p) != 0 {
			t.Errorf("%s: what the guidance describes fails: %v", role, p)
		}
	}
	g := GuidanceOf(string(EvChangeSpec))
	for _, must := range []string{"summary", "non-empty", "claim_changes", "follow_up_experiments", "at most 3", "folder-safe", "depends_on"} {
		if !strings.Contains(g, must) {
			t.Errorf("change spec guidance omits %q: %s", must, g)
		}
	}
	for _, status := range keys(claimStatuses) {
		for _, conf := range keys(confidences) {
			if !strings.Contains(g, status) || !strings.Contains(g, conf) {
				t.Fatalf("guidance omits %s or %s", status, conf)
			}
			spec := fmt.Sprintf(`{"summary":"what changes","claim_changes":[{"claim_id":"cl_1","status":%q,"confidence":%q},{"statement":"new","confidence":%q}],
				"follow_up_experiments":[{"name":"next-step","intent":"go on"}]}`, status, conf, conf)
			if p := CheckArtifact(string(EvChangeSpec), []byte(spec)); len(p) != 0 {
				t.Errorf("status %s confidence %s, as the guidance allows: %v", status, conf, p)
			}
		}
	}
	if p := CheckArtifact(string(EvChangeSpec), []byte(`{"summary":"s","claim_changes":[{"statement":"x","confidence":"certain"}],"follow_up_experiments":[]}`)); len(p) == 0 {
		t.Error("a confidence the guidance does not list passes")
	}
}
