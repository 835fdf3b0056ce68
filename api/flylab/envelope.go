package flylab

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

var defaultLabel = map[string]string{
	wf.ToolFind: science.LabelDerived, wf.ToolDraft: science.LabelAgentHypothesized,
	wf.ToolDesign: science.LabelAgentHypothesized, wf.ToolRun: science.LabelSimulationPredicted,
	wf.ToolAnalyze: science.LabelSimulationPredicted, wf.ToolCompare: science.LabelSimulationPredicted,
	wf.ToolSave: science.LabelSimulationPredicted, wf.ToolInspect: science.LabelDerived,
}

var summaries = map[string]string{
	wf.ToolInspect: "Current FlyLab page state.", wf.ToolFind: "Ranked circuits with their evidence for the query.",
	wf.ToolDraft: "Drafted an agent_hypothesized hypothesis.", wf.ToolDesign: "Designed a controlled trial; operator approval is required before it can run.",
	wf.ToolRun: "Ran the approved experiment's seeded batch.", wf.ToolAnalyze: "Computed the five-metric panel.",
	wf.ToolCompare: "Ranked the conditions and proposed one bounded follow-up (not executed).",
	wf.ToolSave:    "Saved the evidence bundle to the ledger.",
}

// success builds the flylab.tool-result.v3 success envelope. A scientific
// path with no provenance label is refused as INCOMPLETE_PROVENANCE.
func (s *Service) success(name string, st wf.SessionState, out wf.ToolOutcome, opID string, data map[string]any) map[string]any {
	data = normalize(data)
	manifest, labels, missing := s.provenanceManifest(s.byName[name], data)
	if missing != "" {
		return s.failure(name, st.SessionID, st.Revision, &wf.ToolFailure{Code: science.CodeIncompleteProvenance,
			Message: "a scientific path of the result carries no provenance label", Details: map[string]any{"path": missing}})
	}
	var op any
	if opID != "" {
		op = opID
	}
	summary := summaries[name]
	if out.Replay {
		summary = "Idempotent replay of operation " + opID + ": " + summary
	}
	return map[string]any{
		"ok": true, "result_version": ResultVersion, "tool": name, "summary": summary,
		"page_session_id": st.SessionID, "previous_state_revision": out.PreviousRevision, "state_revision": st.Revision,
		"created_artifact_ids": out.CreatedArtifactIDs, "operation_id": op, "idempotent_replay": out.Replay,
		"next_action": nextAction(st),
		"verification": map[string]any{"selector": "#flylab-agent-context",
			"description": "Call inspect_flylab_state and check state_revision and artifact_manifest."},
		"provenance": labels, "provenance_scope": "union_of_labels_in_data", "provenance_manifest": manifest, "data": data,
	}
}

// normalize round-trips data through JSON so pointers resolve on it.
func normalize(data map[string]any) map[string]any {
	raw, err := json.Marshal(data)
	if err != nil {
		return data
	}
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil {
		return data
	}
	return out
}

// failure builds the failure envelope; the recovery is always to re-read
// the state before choosing another action.
func (s *Service) failure(name, sessionID string, revision int, f *wf.ToolFailure) map[string]any {
	if f.Details == nil {
		f.Details = map[string]any{}
	}
	reason := "Call inspect_flylab_state to read the current revision and next_action before another call."
	if f.Code == wf.CodeInvalidInput {
		reason = "Fix the argument at error.details.pointer; call inspect_flylab_state for the current revision."
	}
	return map[string]any{
		"ok": false, "result_version": ResultVersion, "tool": name, "page_session_id": sessionID, "state_revision": revision,
		"error":    map[string]any{"code": f.Code, "message": f.Message, "retryable": f.Retryable, "details": f.Details},
		"recovery": map[string]any{"tool": wf.ToolInspect, "input": map[string]any{}, "reason": reason},
	}
}

// provenanceManifest labels every scientific path of the tool's output
// contract that resolves in data; operational paths get no label.
func (s *Service) provenanceManifest(t *Tool, data map[string]any) (map[string]any, []string, string) {
	entries := []any{}
	union := map[string]bool{}
	for _, path := range t.output.ScientificPaths {
		node, ok := resolve(data, path)
		if !ok || empty(node) {
			continue
		}
		labels := collectLabels(node, 0)
		if len(labels) == 0 {
			labels = []string{defaultLabel[t.Name]}
		}
		for _, l := range labels {
			union[l] = true
		}
		entries = append(entries, s.entry(path, node, labels))
	}
	var ops []string
	for _, p := range t.output.OperationalPaths {
		if _, ok := resolve(data, p); ok {
			ops = append(ops, p)
		}
	}
	var labels []string
	for _, l := range science.ProvenanceLabels() {
		if union[l] {
			labels = append(labels, l)
		}
	}
	if labels == nil {
		labels = []string{}
	}
	if ops == nil {
		ops = []string{}
	}
	return map[string]any{"schema_version": "flylab.provenance-manifest.v1",
		"path_scope": s.policy["path_scope"], "entries": entries, "operational_paths": ops}, labels, ""
}

func (s *Service) entry(path string, node any, labels []string) map[string]any {
	obj, _ := node.(map[string]any)
	scope := "record"
	if _, isList := node.([]any); isList {
		scope = "container"
	}
	id, _ := obj["id"].(string)
	if id != "" {
		scope = "artifact"
	}
	typ, _ := obj["artifact_type"].(string)
	if typ == "" {
		typ = strings.TrimPrefix(path[strings.LastIndex(path, "/")+1:], "")
		if typ == "" {
			typ = "result"
		}
	}
	boundary, _ := obj["boundary"].(string)
	if boundary == "" {
		defs, _ := s.policy["definitions"].(map[string]any)
		boundary, _ = defs[labels[0]].(string)
	}
	return map[string]any{"path": path, "artifact_id": id, "artifact_type": typ, "scope": scope, "labels": labels,
		"parent_ids": stringList(obj["parent_ids"]), "evidence_ids": stringList(obj["evidenceIds"]),
		"source_ids": stringList(obj["sourceIds"]), "boundary": boundary}
}

func stringList(v any) []string {
	out := []string{}
	if list, ok := v.([]any); ok {
		for _, x := range list {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// collectLabels finds provenance labels on a node or, failing that, in
// its children (a container inherits the union of what it holds).
func collectLabels(node any, depth int) []string {
	valid := science.ProvenanceLabels()
	var out []string
	add := func(l string) {
		if slices.Contains(valid, l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	switch n := node.(type) {
	case map[string]any:
		switch p := n["provenance"].(type) {
		case string:
			add(p)
		case []any:
			for _, x := range p {
				if s, ok := x.(string); ok {
					add(s)
				}
			}
		}
		if len(out) > 0 || depth >= 3 {
			return out
		}
		for _, k := range sortedKeys(n) {
			for _, l := range collectLabels(n[k], depth+1) {
				add(l)
			}
		}
	case []any:
		for _, x := range n {
			for _, l := range collectLabels(x, depth+1) {
				add(l)
			}
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func empty(v any) bool {
	switch n := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(n) == 0
	case []any:
		return len(n) == 0
	}
	return false
}

// resolve follows an RFC 6901 pointer into decoded JSON.
func resolve(doc any, pointer string) (any, bool) {
	if pointer == "" {
		return doc, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := cur.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			cur = n[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
