package research

// Reflection and consolidation: schemas here, behaviour in issue #7.
func init() {
	const issue = "issue #7: reflection and consolidation"
	lens := object([]string{"id", "title", "charter", "why_distinct"}, props{
		"id": map[string]any{"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{1,47}$"}, "title": strLen("lens title", 1, 200),
		"charter": strLen("what this lens looks for", 1, 4000), "why_distinct": strLen("why it differs from the others", 1, 2000)})
	registerFamily("reflection",
		Tool{Name: "reflection.create", Issue: issue, Description: "Open a project reflection wave with the three core lenses plus the two you design.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID, "lenses": map[string]any{"type": "array", "items": lens, "maxItems": 5}, "title": strLen("wave title", 1, 200)})},
		Tool{Name: "reflection.get", Issue: issue, ReadOnly: true, Description: "Roster, per-lens coverage, TLDRs of current-attempt artifacts, prior published graph and documents, snapshotted terminal-experiment reports and graphs.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID, "reflection_id": strLen("reflection id", 1, 64), "include_content": boolean("include document bodies (default false)")})},
		Tool{Name: "reflection.transition", Issue: issue, Description: "Move a reflection: submit_reflections, submit_reflection_artifacts, begin_consolidation, publish, abandon.",
			Schema: object([]string{"project_id", "reflection_id", "transition"}, props{"project_id": projectID, "reflection_id": strLen("reflection id", 1, 64),
				"transition": enum("transition", "submit_reflections", "submit_reflection_artifacts", "begin_consolidation", "publish", "abandon"), "evidence": dict("evidence")})},
		Tool{Name: "consolidation.get", Issue: issue, ReadOnly: true, Description: "The authoritative reflection plus a slim immutable experiment packet for consolidation.",
			Schema: object([]string{"project_id", "reflection_id"}, props{"project_id": projectID, "reflection_id": strLen("reflection id", 1, 64)})},
		Tool{Name: "consolidation.submit", Issue: issue, Description: "Submit one immutable consolidation proposal.",
			Schema: object([]string{"project_id", "reflection_id", "base_sha", "proposal_sha", "summary", "decisions"}, props{"project_id": projectID,
				"reflection_id": strLen("reflection id", 1, 64), "base_sha": strLen("base commit", 4, 64), "proposal_sha": strLen("proposal commit", 4, 64),
				"summary": strLen("summary", 1, 8000), "validation": dict("validation"), "decisions": anyList("one decision per corpus experiment", 200)})},
		Tool{Name: "reflection.list", Issue: issue, Hidden: true, ReadOnly: true, Description: "Internal: list a project's reflection waves.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID})},
	)
}
