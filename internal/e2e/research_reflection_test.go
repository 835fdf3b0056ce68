package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

// reflectionDriver plays an agent through a wave using only what
// workflow.status_and_next (project scope) says.
type reflectionDriver struct {
	t          *testing.T
	a          *researchAgent
	pid, rid   string
	spec       string
	reviews    func(kind string, n int) verdict
	count      map[string]int
	seenGates  []string
	seenNext   []string
	conflicted bool
}

// run drives the wave until no wave is open; it returns the gates seen.
func (d *reflectionDriver) run() {
	t := d.t
	for step := 0; step < 80; step++ {
		st := d.a.must("workflow.status_and_next", map[string]any{"project_id": d.pid})
		w, _ := st["workflow"].(map[string]any)
		if str(w["reflection_id"]) == "" {
			return
		}
		next := str(w["next_action"])
		d.seenGates, d.seenNext = append(d.seenGates, str(w["current_gate"])), append(d.seenNext, next)
		if guide, ok := w["artifact_guidance"].(map[string]any); ok {
			d.upload(guide)
			continue
		}
		if gate, ok := w["review_gate"].(map[string]any); ok {
			kind := strings.TrimSuffix(str(gate["role"]), "_reviewer")
			d.count[kind]++
			d.review(str(gate["role"]), d.reviews(kind, d.count[kind]))
			continue
		}
		switch next {
		case "submit_reflections", "submit_reflection_artifacts", "begin_consolidation":
			res := d.a.must("reflection.transition", map[string]any{"project_id": d.pid, "reflection_id": d.rid, "transition": next})
			if res["from"] == res["status"] {
				t.Fatalf("%s moved nothing: %v", next, res)
			}
		case "submit_consolidation_proposal":
			d.propose()
		case "advance_central", "wait_for_central_advance", "wait_for_runner_publish":
			time.Sleep(150 * time.Millisecond)
		default:
			t.Fatalf("step %d: an agent cannot act on next_action %q (%v)", step, next, w)
		}
	}
	t.Fatalf("wave not finished after 80 steps: %v", d.seenGates)
}

func (d *reflectionDriver) upload(guide map[string]any) {
	role := str(guide["role"])
	body := strings.ReplaceAll(str(guide["template"]), "TODO:", "Filled in by the agent:")
	if role == "change_spec" {
		body = d.spec
	}
	args := map[string]any{"project_id": d.pid, "target_type": "reflection", "target_id": d.rid, "role": role, "path": guide["path"]}
	if l := str(guide["lens_id"]); l != "" {
		args["lens_id"] = l
		if !strings.HasSuffix(str(guide["path"]), "/lenses/"+l+".md") {
			d.t.Fatalf("lens guidance path %v", guide["path"])
		}
	}
	sub := d.a.must("artifact.submit", args)
	if code, res := uploadAs(d.t, sub, []byte(body)); code != http.StatusOK || res["valid"] != true {
		d.t.Fatalf("upload of %s: %d %v", role, code, res)
	}
}

func (d *reflectionDriver) review(role string, v verdict) {
	req := d.a.must("review.request", map[string]any{"project_id": d.pid, "target_type": "reflection", "target_id": d.rid, "role": role})
	reviewer := d.a.reviewerAgent()
	started := reviewer.must("review.start", map[string]any{"review_request_id": req["review_request_id"],
		"reviewer_capability": req["reviewer_capability"], "caller_session_id": "reviewer-" + role})
	args := map[string]any{"review_session_id": started["review_session_id"], "verdict": v.verdict, "synopsis": "reviewed " + role}
	if v.returnTo != "" {
		args["return_to"] = v.returnTo
	}
	reviewer.must("review.submit", args)
}

// propose submits a proposal covering the corpus from consolidation.get;
// the first time it also checks a second submit is a conflict.
func (d *reflectionDriver) propose() {
	cg := d.a.must("consolidation.get", map[string]any{"project_id": d.pid, "reflection_id": d.rid})
	var decisions []any
	for _, e := range dig(cg, "packet", "experiments").([]any) {
		dec := map[string]any{"experiment_id": dig(e, "experiment_id"), "disposition": "reviewed_not_used", "integration_kind": "none"}
		if dig(e, "status") == "complete" {
			dec = map[string]any{"experiment_id": dig(e, "experiment_id"), "disposition": "used_as_is", "integration_kind": "merge", "source_sha": "abc1234"}
		}
		decisions = append(decisions, dec)
	}
	args := map[string]any{"project_id": d.pid, "reflection_id": d.rid, "base_sha": dig(cg, "central", "sha"),
		"proposal_sha": fmt.Sprintf("%040x", time.Now().UnixNano()), "summary": "merge what worked", "decisions": decisions}
	d.a.must("consolidation.submit", args)
	if !d.conflicted {
		d.conflicted = true
		d.a.refused("conflict", "consolidation.submit", args)
	}
}

func TestResearch_ReflectionFromCreateToPublishedThroughMCP(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "reflection")
	a := connectResearch(t, s, mintProjectKey(t, s, "reflection-agent", pid))
	claim := str(dig(a.must("claim.create", map[string]any{"project_id": pid, "statement": "the method works"}), "claim", "claim_id"))

	// A corpus of five finished experiments: one completed, four abandoned.
	done := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "refl-worked"})["experiment_id"])
	driveExperiment(t, a, pid, done, func(string, int) verdict { return verdict{"pass", ""} })
	for i := 0; i < 4; i++ {
		id := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": fmt.Sprintf("refl-dropped-%d", i)})["experiment_id"])
		a.must("experiment.transition", map[string]any{"project_id": pid, "experiment_id": id, "transition": "abandon"})
	}
	waitFor(t, 10*time.Second, func() bool {
		st := a.must("workflow.status_and_next", map[string]any{"project_id": pid})
		return dig(st, "workflow", "current_gate") == "reflection_required"
	})
	a.refused("gate_blocked", "experiment.create", map[string]any{"project_id": pid, "name": "too-soon"})

	lenses := []any{
		map[string]any{"id": "baselines", "title": "Baselines", "charter": "Were the baselines fair?", "why_distinct": "Only about comparisons"},
		map[string]any{"id": "cost", "title": "Cost", "charter": "What did each result cost?", "why_distinct": "Only about compute"},
	}
	created := a.must("reflection.create", map[string]any{"project_id": pid, "title": "wave one", "lenses": lenses})
	rid := str(created["reflection_id"])
	if roster, _ := created["roster"].([]any); len(roster) != 5 || dig(roster[0], "id") != "amplify" || dig(roster[4], "id") != "cost" {
		t.Fatalf("roster: %v", created["roster"])
	}
	if corpus, _ := created["corpus"].([]any); len(corpus) != 5 {
		t.Fatalf("corpus: %v", created["corpus"])
	}
	a.refused("conflict", "reflection.create", map[string]any{"project_id": pid, "lenses": lenses})
	got := a.must("reflection.get", map[string]any{"project_id": pid, "reflection_id": rid})
	if dig(got, "coverage", "next_lens_id") != "amplify" || dig(got, "reflection", "current_gate") != "reflection_roster_incomplete" {
		t.Fatalf("reflection.get: %v", got)
	}

	spec := fmt.Sprintf(`{"summary":"the method holds; test it at scale","claim_changes":[{"claim_id":%q,"status":"supported","confidence":"high"},{"statement":"cost scales linearly"}],`+
		`"follow_up_experiments":[{"name":"refl-scale-up","intent":"scale the method","depends_on":[%q]}]}`, claim, done)
	d := &reflectionDriver{t: t, a: a, pid: pid, rid: rid, spec: spec, count: map[string]int{},
		reviews: func(kind string, n int) verdict {
			switch {
			case kind == "reflection" && n == 1:
				return verdict{"needs_changes", "synthesizing"}
			case kind == "consolidation" && n == 1:
				return verdict{"needs_changes", "consolidating"}
			}
			return verdict{"pass", ""}
		}}
	d.run()
	for _, g := range []string{"reflection_roster_incomplete", "reflections_complete", "project_graph_required", "reflection_doc_required",
		"change_spec_required", "reflection_review_required", "reflection_review", "reflection_review_passed",
		"consolidation_proposal_required", "consolidation_review_required"} {
		if !containsStr(d.seenGates, g) {
			t.Errorf("gate %s never seen: %v", g, d.seenGates)
		}
	}
	if d.count["reflection"] != 2 || d.count["consolidation"] != 2 {
		t.Errorf("reviews: %v", d.count)
	}

	final := a.must("reflection.get", map[string]any{"project_id": pid, "reflection_id": rid, "include_content": true})
	if dig(final, "reflection", "status") != "published" || dig(final, "reflection", "proposal_revision") != 1.0 {
		t.Fatalf("final wave: %v", final["reflection"])
	}
	follow, _ := dig(final, "reflection", "published", "follow_up_experiments").([]any)
	if len(follow) != 1 || dig(follow[0], "name") != "refl-scale-up" {
		t.Fatalf("follow-ups: %v", dig(final, "reflection", "published"))
	}
	cg := a.must("consolidation.get", map[string]any{"project_id": pid, "reflection_id": rid})
	props, _ := cg["proposals"].([]any)
	if len(props) != 2 || dig(cg, "central", "sha") != dig(props[1], "proposal_sha") || len(cg["prior_consolidation_review_feedback"].([]any)) != 2 {
		t.Fatalf("central %v after proposals %v", cg["central"], props)
	}
	// Publish applied the claim change, added a claim, started the
	// follow-up with its settled dependency and reset the project limit.
	claims := op.must("claim.list", map[string]any{"project_id": pid})["claims"].([]any)
	if len(claims) != 2 || dig(claims[0], "status") != "supported" || dig(claims[0], "confidence") != "high" {
		t.Fatalf("claims: %v", claims)
	}
	fid := str(dig(follow[0], "experiment_id"))
	waitFor(t, 10*time.Second, func() bool {
		gs := op.call("experiment.get_state", map[string]any{"project_id": pid, "experiment_id": fid})
		return !gs.IsError && dig(gs.Body, "state", "dependencies", done) == "complete"
	})
	st := a.must("workflow.status_and_next", map[string]any{"project_id": pid})
	if dig(st, "context", "latest_reflection", "reflection_id") != rid || dig(st, "workflow", "current_gate") == "reflection_required" {
		t.Fatalf("project after publish: %v", st["workflow"])
	}
	a.must("experiment.create", map[string]any{"project_id": pid, "name": "after-the-wave"})
	// The list mirrors the workflow once its activity ran.
	waitFor(t, 10*time.Second, func() bool {
		list := op.must("reflection.list", map[string]any{"project_id": pid})["reflections"].([]any)
		return len(list) == 1 && dig(list[0], "open") == false && dig(list[0], "status") == "published"
	})
	a.refused("forbidden", "reflection.list", map[string]any{"project_id": pid})
	a.refused("gate_blocked", "reflection.transition", map[string]any{"project_id": pid, "reflection_id": rid, "transition": "abandon"})
	recordResearchHistory(t, s, "research-reflection/"+rid, "reflection-published-with-rejections")
}

func TestResearch_ReflectionBadInputsAreRefusedAndChangeNothing(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := researchProject(t, op, "reflection-bad")
	a := connectResearch(t, s, mintProjectKey(t, s, "reflection-bad-agent", pid))
	db := researchDB(t, s)
	count := func() map[string]int64 {
		out := researchCounts(t, db)
		for _, tb := range []string{"research_reflections", "research_consolidation_proposals", "research_central_advances"} {
			var n int64
			db.Table(tb).Count(&n)
			out[tb] = n
		}
		return out
	}
	lens := func(id string) map[string]any {
		return map[string]any{"id": id, "title": "t", "charter": "c", "why_distinct": "w"}
	}
	// Refusals before a wave exists.
	before := count()
	cases := []struct {
		tool, code, pointer string
		args                map[string]any
	}{
		{"reflection.create", "invalid_input", "/lenses", map[string]any{"project_id": pid, "lenses": []any{lens("one-lens")}}},
		{"reflection.create", "invalid_input", "/lenses", map[string]any{"project_id": pid, "lenses": []any{lens("aa"), lens("bb"), lens("cc")}}},
		{"reflection.create", "invalid_input", "/lenses/1/id", map[string]any{"project_id": pid, "lenses": []any{lens("aa"), lens("aa")}}},
		{"reflection.create", "invalid_input", "/lenses/0/id", map[string]any{"project_id": pid, "lenses": []any{lens("Not A Slug"), lens("bb")}}},
		{"reflection.create", "invalid_input", "", map[string]any{"project_id": pid}},
		{"reflection.get", "not_found", "/reflection_id", map[string]any{"project_id": pid}},
		{"reflection.get", "not_found", "/reflection_id", map[string]any{"project_id": pid, "reflection_id": "refl_nope"}},
		{"reflection.transition", "invalid_input", "/transition", map[string]any{"project_id": pid, "reflection_id": "refl_nope", "transition": "fly"}},
		{"reflection.transition", "not_found", "/reflection_id", map[string]any{"project_id": pid, "reflection_id": "refl_nope", "transition": "publish"}},
		{"consolidation.get", "not_found", "/reflection_id", map[string]any{"project_id": pid, "reflection_id": "refl_nope"}},
		{"consolidation.submit", "invalid_input", "/base_sha", map[string]any{"project_id": pid, "reflection_id": "refl_nope", "base_sha": "XYZ!",
			"proposal_sha": "abcd", "summary": "s", "decisions": []any{}}},
		{"artifact.submit", "not_found", "/target_id", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": "refl_nope", "role": "reflection_doc", "path": "r.md"}},
		{"review.request", "not_found", "/target_id", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": "refl_nope", "role": "reflection_reviewer"}},
	}
	for _, c := range cases {
		r := a.refused(c.code, c.tool, c.args)
		if p := str(dig(r.Body, "error", "pointer")); c.pointer != "" && p != c.pointer {
			t.Errorf("%s %v: pointer %q, want %q", c.tool, c.args, p, c.pointer)
		}
	}
	if after := count(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("refused calls changed rows: %v → %v", before, after)
	}

	// Refusals against an open wave (empty corpus) at reflecting.
	rid := str(a.must("reflection.create", map[string]any{"project_id": pid, "lenses": []any{lens("aa"), lens("bb")}})["reflection_id"])
	before = count()
	cases = []struct {
		tool, code, pointer string
		args                map[string]any
	}{
		{"reflection.create", "conflict", "/project_id", map[string]any{"project_id": pid, "lenses": []any{lens("aa"), lens("bb")}}},
		{"reflection.transition", "gate_blocked", "/transition", map[string]any{"project_id": pid, "reflection_id": rid, "transition": "submit_reflections"}},
		{"reflection.transition", "gate_blocked", "/transition", map[string]any{"project_id": pid, "reflection_id": rid, "transition": "publish"}},
		{"artifact.submit", "invalid_input", "/lens_id", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": rid, "role": "reflection_lens_doc", "path": "x.md", "lens_id": "zz"}},
		{"artifact.submit", "invalid_input", "/lens_id", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": rid, "role": "reflection_doc", "path": "x.md", "lens_id": "aa"}},
		{"review.request", "gate_blocked", "/target_id", map[string]any{"project_id": pid, "target_type": "reflection", "target_id": rid, "role": "reflection_reviewer"}},
		{"consolidation.submit", "gate_blocked", "/reflection_id", map[string]any{"project_id": pid, "reflection_id": rid, "base_sha": models.ZeroSHA,
			"proposal_sha": "abcd", "summary": "s", "decisions": []any{}}},
		{"consolidation.submit", "invalid_input", "/decisions/0/disposition", map[string]any{"project_id": pid, "reflection_id": rid, "base_sha": "abcd",
			"proposal_sha": "abcd", "summary": "s", "decisions": []any{map[string]any{"experiment_id": "e", "disposition": "kept", "integration_kind": "none"}}}},
	}
	for _, c := range cases {
		r := a.refused(c.code, c.tool, c.args)
		if p := str(dig(r.Body, "error", "pointer")); c.pointer != "" && p != c.pointer {
			t.Errorf("%s %v: pointer %q, want %q", c.tool, c.args, p, c.pointer)
		}
	}
	if after := count(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("refused calls changed rows: %v → %v", before, after)
	}
	a.must("reflection.transition", map[string]any{"project_id": pid, "reflection_id": rid, "transition": "abandon"})
	waitFor(t, 10*time.Second, func() bool {
		l := op.must("reflection.list", map[string]any{"project_id": pid})["reflections"].([]any)
		return len(l) == 1 && dig(l[0], "open") == false && dig(l[0], "status") == "abandoned"
	})
}
