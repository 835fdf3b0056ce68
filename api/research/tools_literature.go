package research

import models "github.com/gatehouse/gatehouse/models/research"

// Literature review and feed: the living review changes one targeted thing
// per call; the feed is an append-only, seq-ordered stream of posts.
// Handlers live in litreview_*.go and feed_*.go.
func init() {
	t := func(name, desc string, ro bool, h Handler, schema map[string]any) Tool {
		return Tool{Name: name, Description: desc, Schema: schema, ReadOnly: ro, Handler: h}
	}
	target := object([]string{"type", "id"}, props{"type": enum("target type", models.CiteTargetSection, models.CiteTargetExperiment, models.CiteTargetClaim), "id": strLen("target id", 1, 200)})
	key := strLen("idempotency key: a retried call with it applies once", 1, 200)
	registerFamily("literature",
		t("litreview.view", "Read the living literature review: sections in order, revision, citations.", true, litreviewView,
			object([]string{"project_id"}, props{"project_id": projectID})),
		t("litreview.edit", "Make one targeted change to the literature review: add, edit, delete or reorder one section. Never rewrite the document.", false, litreviewEdit,
			object([]string{"project_id", "op"}, props{"project_id": projectID, "op": enum("change", "add", "edit", "delete", "reorder"),
				"section_id": strLen("section (edit, delete, reorder)", 1, 64), "text": strLen("section text (add, edit): one section", 0, 20000),
				"position": integer("position (add: default end; reorder: required)", 0, 10000), "idempotency_key": key})),
		t("litreview.cite", "Register a paper by exactly one of url, doi, arxiv_id; optional targets (≤ 20) it supports.", false, litreviewCite,
			object([]string{"project_id"}, props{"project_id": projectID, "url": strLen("URL", 1, 1000), "doi": strLen("DOI", 1, 300), "arxiv_id": strLen("arXiv id", 1, 64),
				"targets": map[string]any{"type": "array", "items": target, "maxItems": 20}, "note": strLen("note", 0, 4000), "title": strLen("title", 0, 400)})),
	)
	registerFamily("feed",
		t("feed.register", "Register (or update) a feed handle.", false, feedRegister, object([]string{"project_id", "handle"}, props{"project_id": projectID,
			"handle": strLen("handle", 1, 64), "role": enum("role (default main)", "main", "reviewer", "lens"), "bio": strLen("bio", 0, 1000),
			"new_voice": boolean("fail if the handle is taken"), "session_id": strLen("session", 0, 128)})),
		t("feed.post", "Post to the project feed; reply (in_reply_to), continue a thread, or quote a post.", false, feedPost, object([]string{"project_id", "handle", "text"}, props{"project_id": projectID,
			"handle": strLen("handle", 1, 64), "text": strLen("text", 1, 8000),
			"kind":        enum("kind (default status)", "finding", "kill", "hunch", "idea", "paper", "question", "bottleneck", "direction", "status"),
			"attachments": anyList("attachments: strings or {type, ref} objects", 20), "thread": strLen("thread (root post id)", 1, 64),
			"in_reply_to": strLen("post id", 1, 64), "quote_of": strLen("post id", 1, 64), "idempotency_key": key})),
		t("feed.list", "List feed posts, newest first; page with before_seq.", true, feedList, object([]string{"project_id"}, props{"project_id": projectID,
			"limit": integer("limit (default 30)", 1, 200), "before_seq": integer("page before this seq", 1, 1<<50)})),
	)
}
