package flylab

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/contracts"
	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// asAgent re-reads an envelope the way an agent receives it: as JSON.
func asAgent(t *testing.T, env map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkManifest demands that every entry's pointer resolves in doc and
// carries exactly the labels found under it (the operational and
// untrusted paths excluded), that every non-empty scientific path has its
// entry, and returns the union of the entries' labels.
func checkManifest(t *testing.T, where string, doc any, manifest map[string]any, scientific []string) map[string]bool {
	t.Helper()
	skip := stringsIn(manifest["operational_paths"])
	union := map[string]bool{}
	entries, _ := manifest["entries"].([]any)
	if len(entries) == 0 {
		t.Fatalf("%s: no manifest entries", where)
	}
	seen := map[string]bool{}
	for _, raw := range entries {
		e := raw.(map[string]any)
		path := e["path"].(string)
		seen[path] = true
		if _, ok := readerPointer(doc, path); !ok {
			t.Errorf("%s: pointer %q does not resolve", where, path)
			continue
		}
		got, want := labelSet(e["labels"]), readerLabels(doc, path, skip)
		if len(got) == 0 || !maps.Equal(got, want) {
			t.Errorf("%s: %q labelled %v, the data under it carries %v", where, path, keysOf(got), keysOf(want))
		}
		for _, u := range stringsIn(manifest["untrusted_annotation_paths"]) {
			if path == u || strings.HasPrefix(path, u+"/") {
				t.Errorf("%s: caller text %q is a scientific entry", where, path)
			}
		}
		maps.Copy(union, got)
	}
	for _, p := range scientific {
		if node, ok := readerPointer(doc, p); ok && !emptyNode(node) && !slices.Contains(skip, p) && !seen[p] {
			t.Errorf("%s: scientific path %q has data but no entry", where, p)
		}
	}
	return union
}

func emptyNode(v any) bool {
	switch n := v.(type) {
	case nil:
		return true
	case string:
		return n == ""
	case []any:
		return len(n) == 0
	case map[string]any:
		return len(n) == 0
	}
	return false
}

func stringsIn(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		out = append(out, x.(string))
	}
	return out
}

func keysOf(m map[string]bool) []string {
	out := slices.Collect(maps.Keys(m))
	slices.Sort(out)
	return out
}

func TestEveryTool_ManifestPointersResolveAndCarryExactlyTheLabelsUnderThem(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		m := mdnMission(t, db)
		for _, tool := range m.svc.Tools() {
			env, ok := m.envelopes[tool.Name]
			if !ok {
				t.Fatalf("the mission never called %s", tool.Name)
			}
			env = asAgent(t, env)
			if env["ok"] != true {
				t.Fatalf("%s failed: %v", tool.Name, env["error"])
			}
			union := checkManifest(t, tool.Name, env["data"], env["provenance_manifest"].(map[string]any), tool.output.ScientificPaths)
			if got := labelSet(env["provenance"]); !maps.Equal(got, union) {
				t.Errorf("%s: provenance summary %v, entries' union %v", tool.Name, keysOf(got), keysOf(union))
			}
		}
	})
}

func TestSave_BundleClaimsOnlyTheLabelsOfWhatItCarries(t *testing.T) {
	m := mdnMission(t, modelstest.SQLite(t))
	env := asAgent(t, m.envelopes[wf.ToolSave])
	data := env["data"].(map[string]any)
	export := data["evidence_export"].(map[string]any)
	payload := export["payload"].(map[string]any)
	pm := payload["provenance_manifest"].(map[string]any)
	union := checkManifest(t, "export payload", payload, pm, []string{"/circuit", "/evidence", "/hypothesis", "/experiment",
		"/approval", "/batch", "/analyses", "/comparison", "/datasets", "/model", "/mission/discovery_decision"})
	for name, labels := range map[string]any{"bundle": data["bundle"].(map[string]any)["provenance"],
		"export bundle": export["bundle"].(map[string]any)["provenance"]} {
		if !maps.Equal(labelSet(labels), union) {
			t.Errorf("%s claims %v, its payload carries %v", name, labels, keysOf(union))
		}
	}
	// The session's artifact manifest names the bundle with the same labels.
	inspect := asAgent(t, m.envelopes[wf.ToolInspect])["data"].(map[string]any)
	rec, _ := readerPointer(inspect, "/agent_context/artifact_manifest/evidence_bundle")
	if r, ok := rec.(map[string]any); !ok || !maps.Equal(labelSet(r["provenance"]), union) {
		t.Errorf("inspect's evidence_bundle record %v, the bundle carries %v", rec, keysOf(union))
	}
	// This MDN lineage cites no connectome_inferred record, so a bundle
	// claiming all five labels would claim data it does not carry.
	if union[science.LabelConnectomeInferred] && !strings.Contains(mustJSON(t, payload["evidence"]), science.LabelConnectomeInferred) &&
		!strings.Contains(mustJSON(t, payload["circuit"]), science.LabelConnectomeInferred) {
		t.Error("connectome_inferred claimed without a record carrying it")
	}
	untrusted := stringsIn(pm["untrusted_annotation_paths"])
	for _, p := range []string{"/annotation", "/mission/goal", "/mission/discovery_decision/missionGoal"} {
		if !slices.Contains(untrusted, p) {
			t.Errorf("caller text %s is not marked untrusted: %v", p, untrusted)
		}
	}
	resultUntrusted := stringsIn(env["provenance_manifest"].(map[string]any)["untrusted_annotation_paths"])
	for _, p := range []string{"/bundle/title", "/evidence_export/payload/annotation", "/evidence_export/payload/mission/goal",
		"/evidence_export/payload/mission/discovery_decision/missionGoal"} {
		if !slices.Contains(resultUntrusted, p) {
			t.Errorf("caller text %s is not marked untrusted in the result manifest: %v", p, resultUntrusted)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestSuccess_RefusesAnUnlabelledScientificSubtree(t *testing.T) {
	m := mdnMission(t, modelstest.SQLite(t))
	stored, err := models.LoadToolResult(t.Context(), m.db, "result/"+wf.ToolRun)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(stored, &data); err != nil {
		t.Fatal(err)
	}
	// A model manifest as stored before it carried labels: nothing under
	// /model says what it is, and no tool default may fill the gap.
	model := data["model"].(map[string]any)
	delete(model, "provenance")
	delete(model, "controllerMapping")
	env := asAgent(t, m.svc.success(wf.ToolRun, m.state, wf.ToolOutcome{Revision: m.state.Revision}, "run-1", data))
	e, _ := env["error"].(map[string]any)
	if env["ok"] != false || e["code"] != science.CodeIncompleteProvenance || e["details"].(map[string]any)["path"] != "/model" {
		t.Fatalf("got %v", env)
	}
	if env["page_session_id"] != m.state.SessionID || env["state_revision"] != float64(m.state.Revision) {
		t.Errorf("failure envelope does not name the session: %v %v", env["page_session_id"], env["state_revision"])
	}
}

func TestSave_ExportHashRecomputedByAnIndependentReader(t *testing.T) {
	m := mdnMission(t, modelstest.SQLite(t))
	env := asAgent(t, m.envelopes[wf.ToolSave])
	data := env["data"].(map[string]any)
	raw, err := json.Marshal(data["evidence_export"])
	if err != nil {
		t.Fatal(err)
	}
	got, err := readerManifestHash(raw)
	if err != nil {
		t.Fatal(err)
	}
	export := data["evidence_export"].(map[string]any)
	integrity, bundle := export["integrity"].(map[string]any), export["bundle"].(map[string]any)
	if got != integrity["manifestHash"] || got != bundle["manifestHash"] {
		t.Fatalf("reader computed %s; integrity says %v, bundle %v", got, integrity["manifestHash"], bundle["manifestHash"])
	}
	// The ledger copy is the same export, byte for byte in content.
	row, err := models.BundleByID(t.Context(), m.db, bundle["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if stored, err := readerManifestHash([]byte(row.Export)); err != nil || stored != got {
		t.Fatalf("ledger export hashes to %s (%v), the result's to %s", stored, err, got)
	}
	// An altered payload no longer matches.
	payload := export["payload"].(map[string]any)
	payload["hypothesis"].(map[string]any)["claim"] = "Silencing MDN increases backward distance."
	tampered, _ := json.Marshal(export)
	if again, _ := readerManifestHash(tampered); again == got {
		t.Fatal("a changed claim left the hash unchanged")
	}
	// And the export validates against the published schema.
	schema, err := contracts.CompileJSON(m.svc.exportSchemaURL(), models.ExportSchema)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := schema.ValidateJSON(raw); err != nil || len(v) > 0 {
		t.Fatalf("export breaks the published schema: %v %v", err, v)
	}
}

func TestRun_ResultCarriesTheContractsModelShapesAndSHA256RunHash(t *testing.T) {
	m := mdnMission(t, modelstest.SQLite(t))
	design := asAgent(t, m.envelopes[wf.ToolDesign])["data"].(map[string]any)
	run := asAgent(t, m.envelopes[wf.ToolRun])["data"].(map[string]any)
	for where, doc := range map[string]any{"design": design, "run": run} {
		p := "/model/controllerMapping"
		if where == "design" {
			p = "/experiment" + p
		}
		cm, ok := readerPointer(doc, p)
		if !ok || cm.(map[string]any)["circuitId"] != "circuit_mdn_backward" || len(cm.(map[string]any)["channels"].([]any)) == 0 {
			t.Errorf("%s: %s is %v", where, p, cm)
		}
	}
	if h, _ := run["runHash"].(string); !strings.HasPrefix(h, "sha256:") || len(h) != 71 {
		t.Errorf("runHash %q", run["runHash"])
	}
	for _, cr := range run["conditionRuns"].([]any) {
		it, _ := cr.(map[string]any)["illustrativeTrajectory"].(map[string]any)
		tr, _ := it["trajectory"].(map[string]any)
		if it["artifact_type"] != "illustrative_trajectory" || len(tr["tMs"].([]any)) != science.IllustrativeSamples {
			t.Errorf("condition %v: illustrative trajectory %v", cr.(map[string]any)["conditionId"], it["artifact_type"])
		}
	}
}

func TestFind_EvidenceRecordsCarryCitations(t *testing.T) {
	m := mdnMission(t, modelstest.SQLite(t))
	find := asAgent(t, m.envelopes[wf.ToolFind])["data"].(map[string]any)
	evidence := find["evidence"].([]any)
	if len(evidence) == 0 {
		t.Fatal("no evidence")
	}
	for _, raw := range evidence {
		e := raw.(map[string]any)
		cites, _ := e["citations"].([]any)
		if len(cites) == 0 || len(cites) != len(e["sourceIds"].([]any)) {
			t.Fatalf("%v: citations %v for sources %v", e["id"], cites, e["sourceIds"])
		}
		for _, c := range cites {
			c := c.(map[string]any)
			if c["text"] == "" || c["bibliographyStatus"] == "" {
				t.Errorf("%v: citation %v", e["id"], c)
			}
		}
	}
}

func TestInspect_ArtifactManifestRecordsCarryTheLabelsOfTheRecordsTheyName(t *testing.T) {
	m := mdnMission(t, modelstest.SQLite(t))
	data := func(tool string) any { return asAgent(t, m.envelopes[tool])["data"] }
	inspect := data(wf.ToolInspect)
	for record, source := range map[string]struct {
		tool, pointer string
	}{
		"discovery_decision": {wf.ToolFind, "/discovery_decision"},
		"hypothesis":         {wf.ToolDraft, "/hypothesis"},
		"experiment":         {wf.ToolDesign, "/experiment"},
		"approval":           {wf.ToolRun, "/approval"},
		"batch":              {wf.ToolRun, ""},
		"model":              {wf.ToolRun, "/model"},
		"analyses/0":         {wf.ToolAnalyze, "/analysis"},
		"comparison":         {wf.ToolCompare, "/comparison"},
		"evidence_bundle":    {wf.ToolSave, "/bundle"},
	} {
		rec, ok := readerPointer(inspect, "/agent_context/artifact_manifest/"+record)
		named, found := readerPointer(data(source.tool), source.pointer)
		if !ok || !found {
			t.Fatalf("%s: record %v, named %v", record, rec, named)
		}
		got, want := labelSet(rec.(map[string]any)["provenance"]), labelSet(named.(map[string]any)["provenance"])
		if len(got) == 0 || !maps.Equal(got, want) {
			t.Errorf("artifact manifest %s says %v, the record says %v", record, keysOf(got), keysOf(want))
		}
	}
}
