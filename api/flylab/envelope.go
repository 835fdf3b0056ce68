package flylab

import (
	"encoding/json"
	"errors"

	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

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
	if name == wf.ToolSave {
		data["export_schema_url"] = s.exportSchemaURL()
	}
	data = normalize(data)
	manifest, labels, err := s.provenanceManifest(s.byName[name], data)
	if err != nil {
		return s.failure(name, st.SessionID, st.Revision, provenanceFailure(err))
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

// normalize makes data plain JSON values (objects, arrays, strings,
// float64 numbers, booleans, null) so pointers resolve on it. Data decoded
// from JSON already is, and is only read: a stored tool result of tens of
// kilobytes is not encoded and decoded again, and a shared document (the
// provenance policy) is never written; only the Go values added to it
// (next_action, the gate, structs) are round-tripped, in place.
func normalize(data map[string]any) map[string]any {
	for k, v := range data {
		if plain, replaced := plainJSON(v); replaced {
			data[k] = plain
		}
	}
	return data
}

// plainJSON returns v as plain JSON values and whether it is a new value
// the caller must store in v's place. Maps and slices are fixed in place
// (only where a value in them is not plain); anything else that is not a
// plain value is round-tripped through JSON.
func plainJSON(v any) (any, bool) {
	switch t := v.(type) {
	case nil, string, float64, bool:
		return v, false
	case map[string]any:
		normalize(t)
		return t, false
	case []any:
		for i, x := range t {
			if plain, replaced := plainJSON(x); replaced {
				t[i] = plain
			}
		}
		return t, false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v, false
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return v, false
	}
	return out, true
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

// untrustedPaths are caller-supplied text a tool echoes outside objects
// marked "untrusted": operational, never scientific.
var untrustedPaths = map[string][]string{
	wf.ToolSave: {"/bundle/title", "/evidence_export/bundle/title",
		"/evidence_export/payload/mission/discovery_decision/missionGoal",
		"/evidence_export/payload/mission/discovery_decision/search"},
}

// provenanceManifest derives the manifest of a tool's data from the
// labels the data carries (science.DeriveProvenance): no label is
// assigned here, and a scientific path without one is refused.
func (s *Service) provenanceManifest(t *Tool, data map[string]any) (science.ProvenanceManifest, []string, error) {
	scope, _ := s.policy["path_scope"].(string)
	return science.DeriveProvenance(data, science.ManifestSpec{PathScope: scope, ScientificPaths: t.output.ScientificPaths,
		OperationalPaths: t.output.OperationalPaths, UntrustedPaths: untrustedPaths[t.Name]})
}

func provenanceFailure(err error) *wf.ToolFailure {
	var se *science.Error
	if errors.As(err, &se) {
		return &wf.ToolFailure{Code: se.Code, Message: se.Message, Details: se.Details}
	}
	return &wf.ToolFailure{Code: science.CodeIncompleteProvenance, Message: err.Error(), Details: map[string]any{}}
}
