package e2e

import (
	"strings"
	"testing"
)

func TestLitreview_EditedOneChangeAtATimeThroughMCP(t *testing.T) {
	s := Shared(t)
	db := researchDB(t, s)
	op := connectResearch(t, s, s.OperatorToken)
	projectID := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-lit")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	rev := 0.0
	change := func(args map[string]any) map[string]any {
		t.Helper()
		args["project_id"] = projectID
		out := agent.must("litreview.edit", args)
		if out["revision"] != rev+1 {
			t.Fatalf("%v: revision %v after %v", args, out["revision"], rev)
		}
		rev++
		return out
	}
	texts := func() []string {
		v := agent.must("litreview.view", map[string]any{"project_id": projectID})
		if v["revision"] != rev {
			t.Fatalf("view revision %v, want %v", v["revision"], rev)
		}
		var out []string
		for _, s := range v["sections"].([]any) {
			out = append(out, str(dig(s, "text")))
		}
		return out
	}
	a := str(change(map[string]any{"op": "add", "text": "## Background\nPrior work."})["section_id"])
	b := str(change(map[string]any{"op": "add", "text": "## Methods\nContrastive."})["section_id"])
	change(map[string]any{"op": "add", "text": "## Open questions", "position": 0})
	if got := strings.Join(texts(), "|"); got != "## Open questions|## Background\nPrior work.|## Methods\nContrastive." {
		t.Fatalf("after adds: %s", got)
	}
	change(map[string]any{"op": "edit", "section_id": a, "text": "## Background\nPrior work, revised."})
	change(map[string]any{"op": "reorder", "section_id": b, "position": 0})
	if got := strings.Join(texts(), "|"); got != "## Methods\nContrastive.|## Open questions|## Background\nPrior work, revised." {
		t.Fatalf("after edit+reorder: %s", got)
	}
	change(map[string]any{"op": "delete", "section_id": b})
	if n := len(texts()); n != 2 {
		t.Fatalf("%d sections after delete", n)
	}

	claim := str(dig(agent.must("claim.create", map[string]any{"project_id": projectID, "statement": "contrastive helps"}), "claim", "claim_id"))
	cite := agent.must("litreview.cite", map[string]any{"project_id": projectID, "doi": "10.1000/XYZ.42", "title": "A paper",
		"targets": []any{map[string]any{"type": "litreview_section", "id": a}, map[string]any{"type": "claim", "id": claim}}})
	if cite["duplicate"] != false || dig(cite, "citation", "doi") != "10.1000/xyz.42" {
		t.Fatalf("cite: %v", cite)
	}
	dup := agent.must("litreview.cite", map[string]any{"project_id": projectID, "doi": "https://doi.org/10.1000/xyz.42"})
	if dup["duplicate"] != true || dig(dup, "citation", "citation_id") != dig(cite, "citation", "citation_id") {
		t.Fatalf("duplicate not detected: %v", dup)
	}
	agent.must("litreview.cite", map[string]any{"project_id": projectID, "arxiv_id": "2401.01234v2"})

	// Bad inputs: refused, nothing changed.
	before := [3]int64{countRows(t, db, "research_lit_sections"), countRows(t, db, "research_lit_edits"), countRows(t, db, "research_citations")}
	whole := "# Review\n## Background\nx\n## Methods\ny"
	for _, b := range []struct {
		code string
		args map[string]any
		tool string
	}{
		{"invalid_input", map[string]any{"op": "edit", "section_id": a, "text": whole}, "litreview.edit"},
		{"invalid_input", map[string]any{"op": "add", "text": strings.Repeat("x", 9000)}, "litreview.edit"},
		{"invalid_input", map[string]any{"op": "rewrite", "text": "x"}, "litreview.edit"},
		{"invalid_input", map[string]any{"op": "delete", "section_id": a, "text": "also this"}, "litreview.edit"},
		{"invalid_input", map[string]any{"op": "reorder", "section_id": a}, "litreview.edit"},
		{"not_found", map[string]any{"op": "edit", "section_id": "sec_none", "text": "x"}, "litreview.edit"},
		{"invalid_input", map[string]any{"url": "https://a.example/p", "doi": "10.1000/1"}, "litreview.cite"},
		{"invalid_input", map[string]any{}, "litreview.cite"},
		{"invalid_input", map[string]any{"doi": "not-a-doi"}, "litreview.cite"},
		{"invalid_input", map[string]any{"url": "ftp://x/y"}, "litreview.cite"},
		{"invalid_input", map[string]any{"arxiv_id": "24.1"}, "litreview.cite"},
		{"not_found", map[string]any{"url": "https://a.example/p", "targets": []any{map[string]any{"type": "claim", "id": "cl_none"}}}, "litreview.cite"},
		{"invalid_input", map[string]any{"url": "https://a.example/p", "targets": []any{map[string]any{"type": "claim", "id": claim}, map[string]any{"type": "claim", "id": claim}}}, "litreview.cite"},
		{"invalid_input", map[string]any{"url": "https://a.example/p", "targets": []any{map[string]any{"type": "paper", "id": "x"}}}, "litreview.cite"},
	} {
		b.args["project_id"] = projectID
		r := agent.refused(b.code, b.tool, b.args)
		if b.code == "invalid_input" && str(dig(r.Body, "error", "pointer")) == "" && b.args["op"] != "rewrite" {
			t.Errorf("%v: no pointer: %s", b.args, r.Raw)
		}
	}
	after := [3]int64{countRows(t, db, "research_lit_sections"), countRows(t, db, "research_lit_edits"), countRows(t, db, "research_citations")}
	if after != before {
		t.Fatalf("bad inputs changed rows: %v → %v", before, after)
	}
	texts()
}

func TestFeed_ThreadWithRepliesQuotesAndPagingThroughMCP(t *testing.T) {
	s := Shared(t)
	db := researchDB(t, s)
	op := connectResearch(t, s, s.OperatorToken)
	projectID := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-feed")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	p := func(args map[string]any) map[string]any {
		t.Helper()
		args["project_id"] = projectID
		return agent.must("feed.post", args)["post"].(map[string]any)
	}
	if r := agent.must("feed.register", map[string]any{"project_id": projectID, "handle": "main", "role": "main", "bio": "the lead"}); r["created"] != true {
		t.Fatalf("register: %v", r)
	}
	agent.must("feed.register", map[string]any{"project_id": projectID, "handle": "critic", "role": "reviewer"})
	agent.refused("conflict", "feed.register", map[string]any{"project_id": projectID, "handle": "critic", "new_voice": true})

	root := p(map[string]any{"handle": "main", "kind": "finding", "text": "lr 3e-4 beats 1e-3", "attachments": []any{"results/metrics.json", map[string]any{"type": "experiment", "ref": "exp_1"}}})
	reply := p(map[string]any{"handle": "critic", "kind": "question", "text": "how many seeds?", "in_reply_to": root["post_id"]})
	answer := p(map[string]any{"handle": "main", "kind": "status", "text": "five", "in_reply_to": reply["post_id"], "idempotency_key": "ans-1"})
	again := p(map[string]any{"handle": "main", "kind": "status", "text": "five", "in_reply_to": reply["post_id"], "idempotency_key": "ans-1"})
	quote := p(map[string]any{"handle": "critic", "kind": "idea", "text": "try cosine", "quote_of": answer["post_id"]})
	if reply["thread"] != root["post_id"] || answer["thread"] != root["post_id"] || quote["thread"] != quote["post_id"] {
		t.Fatalf("threads: %v %v %v", reply, answer, quote)
	}
	if again["post_id"] != answer["post_id"] || again["replayed"] != true {
		t.Fatalf("replayed post: %v", again)
	}
	l := agent.must("feed.list", map[string]any{"project_id": projectID, "limit": 2})
	posts := l["posts"].([]any)
	if len(posts) != 2 || dig(posts[0], "seq") != 4.0 || dig(posts[1], "seq") != 3.0 || l["next_before_seq"] != 3.0 {
		t.Fatalf("page 1: %v", l)
	}
	l2 := agent.must("feed.list", map[string]any{"project_id": projectID, "before_seq": 3})
	if posts := l2["posts"].([]any); len(posts) != 2 || dig(posts[1], "post_id") != root["post_id"] || l2["next_before_seq"] != nil {
		t.Fatalf("page 2: %v", l2)
	}
	if atts := dig(l2["posts"].([]any)[1], "attachments").([]any); len(atts) != 2 {
		t.Fatalf("attachments: %v", atts)
	}

	before := [2]int64{countRows(t, db, "research_feed_posts"), countRows(t, db, "research_feed_handles")}
	for _, b := range []struct {
		code, tool string
		args       map[string]any
	}{
		{"not_found", "feed.post", map[string]any{"handle": "ghost", "text": "boo"}},
		{"invalid_input", "feed.post", map[string]any{"handle": "main", "text": "x", "kind": "rant"}},
		{"not_found", "feed.post", map[string]any{"handle": "main", "text": "x", "in_reply_to": "fp_none"}},
		{"not_found", "feed.post", map[string]any{"handle": "main", "text": "x", "quote_of": "fp_none"}},
		{"invalid_input", "feed.post", map[string]any{"handle": "main", "text": "x", "in_reply_to": reply["post_id"], "thread": quote["post_id"]}},
		{"invalid_input", "feed.post", map[string]any{"handle": "main", "text": "x", "attachments": []any{42}}},
		{"invalid_input", "feed.post", map[string]any{"handle": "main", "text": ""}},
		{"conflict", "feed.post", map[string]any{"handle": "main", "kind": "status", "text": "six", "in_reply_to": reply["post_id"], "idempotency_key": "ans-1"}},
		{"invalid_input", "feed.register", map[string]any{"handle": "Bad Handle"}},
		{"invalid_input", "feed.register", map[string]any{"handle": "x", "role": "boss"}},
		{"invalid_input", "feed.list", map[string]any{"limit": 0}},
	} {
		b.args["project_id"] = projectID
		agent.refused(b.code, b.tool, b.args)
	}
	if after := [2]int64{countRows(t, db, "research_feed_posts"), countRows(t, db, "research_feed_handles")}; after != before {
		t.Fatalf("bad inputs changed rows: %v → %v", before, after)
	}
}
