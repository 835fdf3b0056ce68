package research

import rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"

// Reflection and consolidation: one wave per project at a time, run by the
// workflow research-reflection/<id> (reflection_*.go hold the handlers).
func init() {
	lens := object([]string{"id", "title", "charter", "why_distinct"}, props{
		"id": map[string]any{"type": "string", "pattern": rg.LensSlug.String(), "description": "slug; also the lens doc's file name"}, "title": strLen("lens title", 1, 200),
		"charter": strLen("what this lens looks for", 1, 4000), "why_distinct": strLen("why it differs from the others", 1, 2000)})
	decision := object([]string{"experiment_id", "disposition", "integration_kind"}, props{
		"experiment_id":    strLen("a corpus experiment", 1, 64),
		"disposition":      enum("what the consolidation does with it", dispositions...),
		"integration_kind": enum("how its code is integrated", integrationKinds...),
		"source_sha":       map[string]any{"type": "string", "pattern": shaPattern, "description": "the commit carried (used_as_is, adapted)"},
		"superseded_by":    strLen("what supersedes it (superseded)", 1, 200), "notes": strLen("notes", 0, 4000)})
	sha := func(desc string) map[string]any {
		return map[string]any{"type": "string", "pattern": shaPattern, "description": desc}
	}
	reflectionID := strLen("reflection id", 1, 64)
	registerFamily("reflection",
		Tool{Name: "reflection.create", Handler: reflectionCreate, Description: "Open a project reflection wave: the three core lenses (amplify, avoid, entropy) plus the two you design in lenses; snapshots the corpus of finished experiments.",
			Schema: object([]string{"project_id", "lenses"}, props{"project_id": projectID, "lenses": map[string]any{"type": "array", "items": lens, "minItems": 2, "maxItems": 5,
				"description": "the two lenses you design {id, title, charter, why_distinct} (core lenses may be listed too)"}, "title": strLen("wave title", 1, 200)})},
		Tool{Name: "reflection.get", Handler: reflectionGet, ReadOnly: true, Description: "Roster, per-lens coverage, TLDRs of current-attempt artifacts, prior published graph and documents, snapshotted terminal-experiment reports and graphs; include_content=true only for a focused deep dive.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID, "reflection_id": reflectionID, "include_content": boolean("include document bodies (default false)")})},
		Tool{Name: "reflection.transition", Handler: reflectionTransition, Description: "Move a reflection: submit_reflections, submit_reflection_artifacts, begin_consolidation, publish, abandon (alias: abandon_reflection).",
			Schema: object([]string{"project_id", "reflection_id", "transition"}, props{"project_id": projectID, "reflection_id": reflectionID,
				"transition": enum("transition (aliases: the next_action words)", transitionNames(rg.Moves, rg.Aliases)...), "evidence": dict("evidence")})},
		Tool{Name: "consolidation.get", Handler: consolidationGet, ReadOnly: true, Description: "The authoritative reflection plus a slim immutable experiment packet: branches, base/head SHAs, result summaries, proposal coverage, prior consolidation-review feedback.",
			Schema: object([]string{"project_id", "reflection_id"}, props{"project_id": projectID, "reflection_id": reflectionID})},
		Tool{Name: "consolidation.submit", Handler: consolidationSubmit, Description: "Submit one immutable consolidation proposal for the current attempt: base_sha (the central sha), proposal_sha, summary, validation and one decision per corpus experiment.",
			Schema: object([]string{"project_id", "reflection_id", "base_sha", "proposal_sha", "summary", "decisions"}, props{"project_id": projectID,
				"reflection_id": reflectionID, "base_sha": sha("the central sha the proposal builds on"), "proposal_sha": sha("the proposal's commit"),
				"summary": strLen("summary", 1, 8000), "validation": dict("validation"),
				"decisions": map[string]any{"type": "array", "items": decision, "maxItems": 200, "description": "one decision per corpus experiment"}})},
		Tool{Name: "reflection.list", Handler: reflectionList, Hidden: true, ReadOnly: true, Description: "Internal: list a project's reflection waves.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID})},
	)
}

// shaPattern is a lowercase hex commit id (abbreviated or full).
const shaPattern = "^[0-9a-f]{4,64}$"

var (
	dispositions     = []string{"used_as_is", "adapted", "reviewed_not_used", "superseded"}
	integrationKinds = []string{"merge", "fast_forward", "cherry_pick", "rewrite", "none"}
)
