package research

// Literature review and feed: schemas here, behaviour in issue #7.
func init() {
	const issue = "issue #7: literature review and feed"
	t := func(name, desc string, ro bool, schema map[string]any) Tool {
		return Tool{Name: name, Description: desc, Schema: schema, ReadOnly: ro, Issue: issue}
	}
	target := object([]string{"type", "id"}, props{"type": enum("target type", "litreview_section", "experiment", "claim"), "id": strLen("target id", 1, 200)})
	registerFamily("literature",
		t("litreview.view", "Read the living literature review.", true, object([]string{"project_id"}, props{"project_id": projectID})),
		t("litreview.edit", "Make one targeted change to the literature review: add, edit, delete or reorder one thing.", false,
			object([]string{"project_id", "op"}, props{"project_id": projectID, "op": enum("change", "add", "edit", "delete", "reorder"),
				"section_id": str("section"), "text": strLen("text", 0, 20000), "position": integer("position", 0, 10000)})),
		t("litreview.cite", "Register a paper by exactly one of url, doi, arxiv_id.", false,
			object([]string{"project_id"}, props{"project_id": projectID, "url": str("URL"), "doi": str("DOI"), "arxiv_id": str("arXiv id"),
				"targets": map[string]any{"type": "array", "items": target, "maxItems": 20}, "note": strLen("note", 0, 4000), "title": strLen("title", 0, 400)})),
	)
	registerFamily("feed",
		t("feed.register", "Register a feed handle.", false, object([]string{"project_id", "handle"}, props{"project_id": projectID,
			"handle": strLen("handle", 1, 64), "role": enum("role", "main", "reviewer", "lens"), "bio": strLen("bio", 0, 1000),
			"new_voice": boolean("new voice"), "session_id": str("session")})),
		t("feed.post", "Post to the project feed.", false, object([]string{"project_id", "handle", "text"}, props{"project_id": projectID,
			"handle": strLen("handle", 1, 64), "text": strLen("text", 1, 8000),
			"kind":        enum("kind", "finding", "kill", "hunch", "idea", "paper", "question", "bottleneck", "direction", "status"),
			"attachments": anyList("attachments", 20), "thread": str("thread"), "in_reply_to": str("post id"), "quote_of": str("post id")})),
		t("feed.list", "List feed posts, newest first.", true, object([]string{"project_id"}, props{"project_id": projectID,
			"limit": integer("limit (default 30)", 1, 200), "before_seq": integer("page before this seq", 0, 1<<50)})),
	)
}
