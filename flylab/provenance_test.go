package flylab

import (
	"encoding/json"
	"slices"
	"testing"
)

func decoded(t *testing.T, raw string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDeriveProvenance_LabelsAreTheUnionFoundUnderEachPath(t *testing.T) {
	doc := decoded(t, `{"provenance":["simulation_predicted"],"boundary":"model output",
		"circuit":{"id":"c1","provenance":["derived"],"motorMap":{"nodes":[{"provenance":"connectome_inferred"},{"provenance":"measured"}]}},
		"status":{"provenance":["agent_hypothesized"]},
		"annotation":{"untrusted":true,"text":"caller text","provenance":["measured"]}}`)
	m, union, err := DeriveProvenance(doc, ManifestSpec{ScientificPaths: []string{"", "/circuit", "/boundary", "/missing"},
		OperationalPaths: []string{"/status"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"":          {LabelMeasured, LabelDerived, LabelConnectomeInferred, LabelSimulationPredicted},
		"/circuit":  {LabelMeasured, LabelDerived, LabelConnectomeInferred},
		"/boundary": {LabelSimulationPredicted},
	}
	if len(m.Entries) != len(want) {
		t.Fatalf("entries %+v", m.Entries)
	}
	for _, e := range m.Entries {
		if !slices.Equal(e.Labels, want[e.Path]) {
			t.Errorf("%q labelled %v, want %v", e.Path, e.Labels, want[e.Path])
		}
	}
	if !slices.Equal(union, want[""]) {
		t.Errorf("union %v", union)
	}
	if !slices.Contains(m.UntrustedPaths, "/annotation") || !slices.Contains(m.OperationalPaths, "/annotation") ||
		!slices.Contains(m.OperationalPaths, "/status") {
		t.Errorf("operational %v untrusted %v", m.OperationalPaths, m.UntrustedPaths)
	}
}

func TestDeriveProvenance_RefusesAnUnlabelledScientificSubtree(t *testing.T) {
	doc := decoded(t, `{"hypothesis":{"id":"h","provenance":["agent_hypothesized"]},"model":{"version":"v1","parameters":[{"status":"assumption"}]}}`)
	_, _, err := DeriveProvenance(doc, ManifestSpec{ScientificPaths: []string{"/hypothesis", "/model"}})
	var fe *Error
	if !asError(err, &fe) || fe.Code != CodeIncompleteProvenance || fe.Details["path"] != "/model" {
		t.Fatalf("got %v", err)
	}
}

func TestDeriveProvenance_CallerTextNeverLendsALabel(t *testing.T) {
	// The only label sits inside caller-supplied text: the subtree is
	// unlabelled and refused, not labelled by the annotation.
	doc := decoded(t, `{"bundle":{"title":"t","note":{"untrusted":true,"provenance":["measured"]}}}`)
	_, _, err := DeriveProvenance(doc, ManifestSpec{ScientificPaths: []string{"/bundle"}, UntrustedPaths: []string{"/bundle/title"}})
	if errorCode(err) != CodeIncompleteProvenance {
		t.Fatalf("got %v", err)
	}
}

func asError(err error, target **Error) bool {
	fe, ok := err.(*Error)
	*target = fe
	return ok
}
