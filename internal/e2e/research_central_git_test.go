package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// centralGit is the test's handle on the repository the stack uses as
// GATEHOUSE_CENTRAL_GIT_DIR: it writes commits and moves branches the way
// agents (and, for the stale case, someone else) would.
type centralGit struct {
	t    *testing.T
	dir  string
	repo *git.Repository
	n    int
}

func newCentralGit(t *testing.T) *centralGit {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	return &centralGit{t: t, dir: dir, repo: repo}
}

// commit stores a commit of one file with parents and, when branch is
// set, points refs/heads/<branch> at it.
func (g *centralGit) commit(branch, msg string, parents ...string) string {
	g.t.Helper()
	g.n++
	put := func(o interface {
		Encode(plumbing.EncodedObject) error
	}, kind plumbing.ObjectType) plumbing.Hash {
		obj := g.repo.Storer.NewEncodedObject()
		obj.SetType(kind)
		if err := o.Encode(obj); err != nil {
			g.t.Fatal(err)
		}
		h, err := g.repo.Storer.SetEncodedObject(obj)
		if err != nil {
			g.t.Fatal(err)
		}
		return h
	}
	blob := g.repo.Storer.NewEncodedObject()
	blob.SetType(plumbing.BlobObject)
	w, _ := blob.Writer()
	if _, err := fmt.Fprintf(w, "%s (%d)\n", msg, g.n); err != nil {
		g.t.Fatal(err)
	}
	_ = w.Close()
	bh, err := g.repo.Storer.SetEncodedObject(blob)
	if err != nil {
		g.t.Fatal(err)
	}
	tree := put(&object.Tree{Entries: []object.TreeEntry{{Name: "notes.md", Mode: filemode.Regular, Hash: bh}}}, plumbing.TreeObject)
	sig := object.Signature{Name: "agent", Email: "agent@example.com", When: time.Unix(1_800_000_000+int64(g.n), 0)}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	for _, p := range parents {
		c.ParentHashes = append(c.ParentHashes, plumbing.NewHash(p))
	}
	h := put(c, plumbing.CommitObject).String()
	if branch != "" {
		g.setBranch(branch, h)
	}
	return h
}

func (g *centralGit) setBranch(branch, sha string) {
	g.t.Helper()
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(branch), plumbing.NewHash(sha))
	if err := g.repo.Storer.SetReference(ref); err != nil {
		g.t.Fatal(err)
	}
}

// central reads a project's central ref back from the repository.
func (g *centralGit) central(projectID string) string {
	g.t.Helper()
	ref, err := g.repo.Reference(plumbing.NewBranchReferenceName("central/"+projectID), true)
	if err != nil {
		g.t.Fatalf("central ref of %s: %v", projectID, err)
	}
	return ref.Hash().String()
}

// driveExperimentWithCode plays an agent through an experiment (every
// review passes), adding evidence(transition) to each transition.
func driveExperimentWithCode(t *testing.T, a *researchAgent, pid, eid string, evidence func(next string) map[string]any) {
	t.Helper()
	for step := 0; step < 60; step++ {
		w, _ := a.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": eid})["workflow"].(map[string]any)
		next := str(w["next_action"])
		if guide, ok := w["artifact_guidance"].(map[string]any); ok {
			sub := a.must("artifact.submit", map[string]any{"project_id": pid, "target_type": "experiment", "target_id": eid, "role": guide["role"], "path": guide["path"]})
			if code, body := uploadAs(t, sub, []byte(strings.ReplaceAll(str(guide["template"]), "TODO:", "Filled in:"))); code != http.StatusOK || body["valid"] != true {
				t.Fatalf("upload of %s: %d %v", guide["role"], code, body)
			}
			continue
		}
		if gate, ok := w["review_gate"].(map[string]any); ok {
			runReview(t, a, pid, eid, str(gate["role"]), verdict{"pass", ""})
			continue
		}
		switch next {
		case "none":
			return
		case "submit_design_for_review", "mark_ready_to_run", "start_running", "submit_results_for_review", "complete_experiment":
			ev := evidence(next)
			if next == "complete_experiment" {
				ev["conclusion"] = "it worked"
			}
			a.must("experiment.transition", map[string]any{"project_id": pid, "experiment_id": eid, "transition": next, "evidence": ev})
		default:
			t.Fatalf("step %d: cannot act on next_action %q", step, next)
		}
	}
	t.Fatalf("experiment %s not finished after 60 steps", eid)
}

// driveWave plays an agent through a reflection wave (every review passes)
// until no wave is open; propose is called at each proposal gate.
func driveWave(d *reflectionDriver, propose func()) {
	for step := 0; step < 80; step++ {
		w, _ := d.a.must("workflow.status_and_next", map[string]any{"project_id": d.pid})["workflow"].(map[string]any)
		if str(w["reflection_id"]) == "" {
			return
		}
		next := str(w["next_action"])
		if guide, ok := w["artifact_guidance"].(map[string]any); ok {
			d.upload(guide)
			continue
		}
		if gate, ok := w["review_gate"].(map[string]any); ok {
			d.review(str(gate["role"]), verdict{"pass", ""})
			continue
		}
		switch next {
		case "submit_reflections", "submit_reflection_artifacts", "begin_consolidation":
			d.a.must("reflection.transition", map[string]any{"project_id": d.pid, "reflection_id": d.rid, "transition": next})
		case "submit_consolidation_proposal":
			propose()
		case "advance_central", "wait_for_central_advance", "wait_for_runner_publish":
			time.Sleep(150 * time.Millisecond)
		default:
			d.t.Fatalf("step %d: cannot act on next_action %q (%v)", step, next, w)
		}
	}
	d.t.Fatal("wave not finished after 80 steps")
}

// centralGitProject makes a project whose central ref is seeded at a root
// commit, and an agent for it.
func centralGitProject(t *testing.T, s *Stack, g *centralGit, name string) (pid string, op, a *researchAgent, root string) {
	t.Helper()
	op = connectResearch(t, s, s.OperatorToken)
	pid = researchProject(t, op, name)
	root = g.commit("central/"+pid, "root of "+name)
	return pid, op, connectResearch(t, s, mintProjectKey(t, s, name+"-agent", pid)), root
}

// waitFinished waits until the experiments' rows mirror a finished status
// (reflection.create snapshots finished experiments from the rows).
func waitFinished(t *testing.T, op *researchAgent, pid string, n int) {
	t.Helper()
	waitFor(t, 10*time.Second, func() bool {
		done := 0
		for _, e := range op.must("experiment.list", map[string]any{"project_id": pid})["experiments"].([]any) {
			if s := str(dig(e, "status")); s == "complete" || s == "abandoned" {
				done++
			}
		}
		return done >= n
	})
}

func TestResearch_CentralGit(t *testing.T) {
	g := newCentralGit(t)
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_CENTRAL_GIT_DIR": g.dir}})
	t.Run("ExperimentsRecordCommitsAndTheAdvanceMovesTheRealRef", func(t *testing.T) { centralGitPublished(t, s, g) })
	t.Run("RefMovedBetweenProposalAndAdvanceSettlesStale", func(t *testing.T) { centralGitStale(t, s, g) })
}

// packetOf returns consolidation.get's packet entries by experiment id.
func packetOf(cg map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range dig(cg, "packet", "experiments").([]any) {
		out[str(dig(e, "experiment_id"))] = e.(map[string]any)
	}
	return out
}

func centralGitPublished(t *testing.T, s *Stack, g *centralGit) {
	pid, op, a, root := centralGitProject(t, s, g, "central-git")

	// Experiment one names its branch at start_running and its head (abbreviated) at submit_results.
	one := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "cg-explicit"})["experiment_id"])
	g.setBranch("work/explicit", root)
	var headOne string
	refusedOnce := false
	driveExperimentWithCode(t, a, pid, one, func(next string) map[string]any {
		switch next {
		case "start_running":
			if !refusedOnce {
				refusedOnce = true
				for key, bad := range map[string]any{"base_sha": "XYZ!", "branch": "bad..name", "head_sha": root} {
					r := a.refused("invalid_input", "experiment.transition", map[string]any{"project_id": pid, "experiment_id": one,
						"transition": next, "evidence": map[string]any{key: bad}})
					if p := str(dig(r.Body, "error", "pointer")); p != "/evidence/"+key {
						t.Errorf("%s=%v: pointer %q", key, bad, p)
					}
				}
				gs := op.must("experiment.get_state", map[string]any{"project_id": pid, "experiment_id": one})
				if dig(gs, "state", "status") != "ready_to_run" || dig(gs, "code", "base_sha") != nil {
					t.Fatalf("refused transitions changed the experiment: %v %v", dig(gs, "state", "status"), gs["code"])
				}
			}
			return map[string]any{"branch": "work/explicit"}
		case "submit_results_for_review":
			headOne = g.commit("work/explicit", "explicit result", root)
			for key, bad := range map[string]any{"branch": "work/other", "base_sha": root, "head_sha": strings.ToUpper(headOne[:10])} {
				r := a.refused("invalid_input", "experiment.transition", map[string]any{"project_id": pid, "experiment_id": one,
					"transition": next, "evidence": map[string]any{key: bad}})
				if p := str(dig(r.Body, "error", "pointer")); p != "/evidence/"+key {
					t.Errorf("%s=%v at submit: pointer %q", key, bad, p)
				}
			}
			return map[string]any{"head_sha": headOne[:10]}
		}
		return map[string]any{}
	})
	gs := op.must("experiment.get_state", map[string]any{"project_id": pid, "experiment_id": one})
	if c := gs["code"]; dig(c, "branch") != "work/explicit" || dig(c, "base_sha") != root || dig(c, "head_sha") != headOne || dig(c, "head_source") != "evidence" {
		t.Fatalf("experiment one's code state: %v (root %s, head %s)", c, root, headOne)
	}
	recordResearchHistory(t, s, "research-experiment/"+one, "complete_with_code_evidence")
	sn := a.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": one})
	if c := dig(sn["context"], "code"); dig(c, "branch") != "work/explicit" || dig(c, "head_sha") != headOne {
		t.Fatalf("status_and_next must show the recorded code state: %v", c)
	}

	// Experiment two says nothing: its conventional branch is found, the
	// base is the central ref, the head the branch's tip at submit_results.
	two := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "cg-convention"})["experiment_id"])
	headTwo := g.commit("experiments/cg-convention", "convention result", root)
	driveExperiment(t, a, pid, two, func(string, int) verdict { return verdict{"pass", ""} })
	// Experiment three never ran: no code state.
	three := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "cg-dropped"})["experiment_id"])
	a.must("experiment.transition", map[string]any{"project_id": pid, "experiment_id": three, "transition": "abandon"})
	waitFinished(t, op, pid, 3)

	lenses := []any{map[string]any{"id": "code", "title": "Code", "charter": "What code should land?", "why_distinct": "Only the code"},
		map[string]any{"id": "data", "title": "Data", "charter": "What data held?", "why_distinct": "Only the data"}}
	rid := str(a.must("reflection.create", map[string]any{"project_id": pid, "lenses": lenses})["reflection_id"])
	d := &reflectionDriver{t: t, a: a, pid: pid, rid: rid, count: map[string]int{},
		spec: `{"summary":"land both experiments' code","claim_changes":[{"statement":"the code merges cleanly"}],"follow_up_experiments":[]}`}
	var merge string
	driveWave(d, func() {
		cg := a.must("consolidation.get", map[string]any{"project_id": pid, "reflection_id": rid})
		if dig(cg, "central", "sha") != root || dig(cg, "central", "ref") != "git:refs/heads/central/"+pid {
			t.Fatalf("central before the advance: %v", cg["central"])
		}
		p := packetOf(cg)
		want := map[string][4]any{
			one:   {"work/explicit", root, headOne, "evidence"},
			two:   {"experiments/cg-convention", root, headTwo, "branch"},
			three: {nil, nil, nil, nil},
		}
		for id, w := range want {
			e := p[id]
			if got := [4]any{e["branch"], e["base_sha"], e["head_sha"], e["head_source"]}; got != w {
				t.Errorf("packet of %s: %v, want %v (%v)", id, got, w, e)
			}
		}
		if dig(p[one], "base_source") != "central" {
			t.Errorf("base of experiment one: %v", p[one])
		}
		merge = g.commit("", "consolidate", root, headOne, headTwo)
		a.must("consolidation.submit", map[string]any{"project_id": pid, "reflection_id": rid, "base_sha": dig(cg, "central", "sha"),
			"proposal_sha": merge, "summary": "merge both", "decisions": []any{
				map[string]any{"experiment_id": one, "disposition": "used_as_is", "integration_kind": "merge", "source_sha": headOne},
				map[string]any{"experiment_id": two, "disposition": "adapted", "integration_kind": "merge", "source_sha": headTwo},
				map[string]any{"experiment_id": three, "disposition": "reviewed_not_used", "integration_kind": "none"}}})
	})
	if got := g.central(pid); got != merge {
		t.Fatalf("the central ref in the repository is %s, want the proposal %s", got, merge)
	}
	final := a.must("reflection.get", map[string]any{"project_id": pid, "reflection_id": rid})
	if dig(final, "reflection", "status") != "published" || dig(final, "reflection", "central_advance", "status") != "bound" ||
		dig(final, "reflection", "central_advance", "observed") != merge {
		t.Fatalf("wave after the advance: %v", final["reflection"])
	}
	cg := a.must("consolidation.get", map[string]any{"project_id": pid, "reflection_id": rid})
	props, _ := cg["proposals"].([]any)
	if len(props) != 1 || dig(props[0], "base_sha") != root || dig(props[0], "proposal_sha") != merge || dig(cg, "central", "sha") != merge {
		t.Fatalf("proposals %v, central %v", props, cg["central"])
	}
	if h := packetOf(cg)[one]["head_sha"]; h != headOne {
		t.Fatalf("the packet changed after publish: head %v", h)
	}
}

func centralGitStale(t *testing.T, s *Stack, g *centralGit) {
	pid, op, a, root := centralGitProject(t, s, g, "central-git-stale")
	eid := str(a.must("experiment.create", map[string]any{"project_id": pid, "name": "cg-stale"})["experiment_id"])
	head := g.commit("experiments/cg-stale", "stale result", root)
	driveExperiment(t, a, pid, eid, func(string, int) verdict { return verdict{"pass", ""} })
	waitFinished(t, op, pid, 1)

	lenses := []any{map[string]any{"id": "code", "title": "Code", "charter": "c", "why_distinct": "w"},
		map[string]any{"id": "risk", "title": "Risk", "charter": "c", "why_distinct": "w"}}
	rid := str(a.must("reflection.create", map[string]any{"project_id": pid, "lenses": lenses})["reflection_id"])
	d := &reflectionDriver{t: t, a: a, pid: pid, rid: rid, count: map[string]int{},
		spec: fmt.Sprintf(`{"summary":"land it","claim_changes":[],"follow_up_experiments":[{"name":"cg-stale-next","intent":"next","depends_on":[%q]}]}`, eid)}
	var first, intruder, second string
	proposals := 0
	driveWave(d, func() {
		proposals++
		cg := a.must("consolidation.get", map[string]any{"project_id": pid, "reflection_id": rid})
		base := str(dig(cg, "central", "sha"))
		if proposals == 2 {
			// The first advance settled stale and published nothing.
			w := a.must("reflection.get", map[string]any{"project_id": pid, "reflection_id": rid})["reflection"]
			past, _ := dig(w, "past_advances").([]any)
			if len(past) != 1 || dig(past[0], "status") != "stale" || dig(past[0], "observed") != intruder ||
				dig(past[0], "expected") != root || dig(past[0], "target") != first {
				t.Fatalf("past advances %v", past)
			}
			if dig(w, "published") != nil || base != intruder || g.central(pid) != intruder {
				t.Fatalf("after the stale advance: published %v, base %s, ref %s", dig(w, "published"), base, g.central(pid))
			}
			if !strings.Contains(str(dig(w, "revision_context", "reason")), "stale") {
				t.Errorf("revision context %v", dig(w, "revision_context"))
			}
			for _, e := range op.must("experiment.list", map[string]any{"project_id": pid})["experiments"].([]any) {
				if dig(e, "name") == "cg-stale-next" {
					t.Fatalf("a stale advance started the follow-up: %v", e)
				}
			}
		}
		if h := packetOf(cg)[eid]["head_sha"]; h != head {
			t.Fatalf("packet head %v, want %s", h, head)
		}
		sha := g.commit("", fmt.Sprintf("proposal %d", proposals), base, head)
		a.must("consolidation.submit", map[string]any{"project_id": pid, "reflection_id": rid, "base_sha": base, "proposal_sha": sha,
			"summary": "merge it", "decisions": []any{map[string]any{"experiment_id": eid, "disposition": "used_as_is", "integration_kind": "merge", "source_sha": head}}})
		switch proposals {
		case 1:
			// Someone else moves the central ref between the proposal and its advance.
			first = sha
			intruder = g.commit("central/"+pid, "someone else's change", root)
		case 2:
			second = sha
		default:
			t.Fatalf("proposal %d", proposals)
		}
	})
	if proposals != 2 || g.central(pid) != second {
		t.Fatalf("proposals %d; central ref %s, want the second proposal %s", proposals, g.central(pid), second)
	}
	final := a.must("reflection.get", map[string]any{"project_id": pid, "reflection_id": rid})
	if dig(final, "reflection", "status") != "published" || dig(final, "reflection", "proposal_revision") != 1.0 ||
		len(dig(final, "reflection", "past_advances").([]any)) != 2 {
		t.Fatalf("wave after the second advance: %v", final["reflection"])
	}
}
