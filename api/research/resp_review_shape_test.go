package research

import (
	"encoding/json"
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// marshalJSON is v's encoding as a response carries it.
func marshalJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestResponseShapes pins the exact bytes of responses that were untyped
// maps: a typed answer must encode as the map did (Go sorts map keys, so
// struct fields follow their keys' order), keys present or absent alike,
// null, [] and "" where they were.
func TestResponseShapes(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC)
	cand := models.Candidate{ID: "cand_1", Name: "resnet", SourceKind: "mlflow_run", SourceRef: "run-1", MetricsJSON: `{"acc":0.9}`,
		PrimaryMetric: "acc", ValidationSummary: "held-out", HigherIsBetter: true, CreatedAt: at}
	post := models.FeedPost{ID: "fp_1", Seq: 7, Handle: "main", Kind: "note", Text: "hi", AttachmentsJSON: "", Thread: "fp_1", CreatedAt: at}
	for _, tc := range []struct {
		name string
		got  any
		want string
	}{
		{"candidate view", candidateView(cand),
			`{"candidate_id":"cand_1","created_at":"2026-12-01T12:30:00Z","higher_is_better":true,"metrics":{"acc":0.9},"name":"resnet",` +
				`"primary_metric":"acc","source_kind":"mlflow_run","source_ref":"run-1","validation_summary":"held-out"}`},
		{"candidate view without metrics", candidateView(models.Candidate{ID: "cand_2", CreatedAt: at}),
			`{"candidate_id":"cand_2","created_at":"2026-12-01T12:30:00Z","higher_is_better":false,"metrics":null,"name":"",` +
				`"primary_metric":"","source_kind":"","source_ref":"","validation_summary":""}`},
		{"post view", postView(post),
			`{"attachments":[],"created_at":"2026-12-01T12:30:00Z","handle":"main","in_reply_to":"","kind":"note","post_id":"fp_1",` +
				`"quote_of":"","seq":7,"text":"hi","thread":"fp_1"}`},
		{"post view with attachments", postView(models.FeedPost{ID: "fp_2", AttachmentsJSON: `[{"artifact_id":"art_1"}]`, CreatedAt: at}),
			`{"attachments":[{"artifact_id":"art_1"}],"created_at":"2026-12-01T12:30:00Z","handle":"","in_reply_to":"","kind":"",` +
				`"post_id":"fp_2","quote_of":"","seq":0,"text":"","thread":""}`},
	} {
		if got := marshalJSON(t, tc.got); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestAnswerShapesMatchMaps builds each converted answer and the map the
// handler wrote before, from the same values, and wants the same bytes.
func TestAnswerShapesMatchMaps(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC)
	url := "https://gh.example/api/artifacts/u/up_1"
	headers := map[string]string{"Content-Type": "application/octet-stream"}
	note := "the artifact is evidence only once these bytes are uploaded; the token is single-use"
	run := "curl -sf -T 'plan.md' '" + url + "'"
	lens := "lens_a"
	empty := ""
	for _, tc := range []struct {
		name   string
		typed  any
		before map[string]any
	}{
		{"artifact.submit, experiment, gated",
			artifactSubmitAnswer{ArtifactID: "art_1", Role: "plan", Path: "plan.md", Attempt: 2, Run: run, MaxBytes: 16 << 10, Note: note,
				Upload: artifactUpload{Method: "PUT", URL: url, Headers: headers, ExpiresAt: at}},
			map[string]any{"artifact_id": "art_1", "role": "plan", "path": "plan.md", "attempt_index": 2, "run": run, "max_bytes": 16 << 10,
				"upload": map[string]any{"method": "PUT", "url": url, "headers": headers, "expires_at": at}, "note": note}},
		{"artifact.submit, experiment, not gated",
			artifactSubmitAnswer{ArtifactID: "art_1", Role: "notes", Path: "plan.md", Attempt: 0, Run: run, Note: note,
				Upload: artifactUpload{Method: "PUT", URL: url, Headers: headers, ExpiresAt: at}},
			map[string]any{"artifact_id": "art_1", "role": "notes", "path": "plan.md", "attempt_index": 0, "run": run,
				"upload": map[string]any{"method": "PUT", "url": url, "headers": headers, "expires_at": at}, "note": note}},
		{"artifact.submit, reflection, no lens",
			artifactSubmitAnswer{ArtifactID: "art_1", Role: "reflection_doc", Path: "plan.md", Attempt: 1, LensID: &empty, Run: run, MaxBytes: 16 << 10, Note: note,
				Upload: artifactUpload{Method: "PUT", URL: url, Headers: headers, ExpiresAt: at}},
			map[string]any{"artifact_id": "art_1", "role": "reflection_doc", "path": "plan.md", "attempt_index": 1, "lens_id": "", "run": run,
				"max_bytes": 16 << 10, "upload": map[string]any{"method": "PUT", "url": url, "headers": headers, "expires_at": at}, "note": note}},
		{"upload, experiment, no problems",
			artifactLandedAnswer{ArtifactID: "art_1", Role: "plan", Path: "plan.md", SHA256: "ab", Size: 12, Valid: true},
			map[string]any{"artifact_id": "art_1", "role": "plan", "path": "plan.md", "sha256": "ab", "size_bytes": int64(12), "valid": true,
				"problems": []string(nil)}},
		{"upload, reflection, problems",
			artifactLandedAnswer{ArtifactID: "art_1", Role: "reflection_lens_doc", LensID: &lens, Path: "l.md", SHA256: "ab", Size: 12,
				Problems: []string{"no heading"}},
			map[string]any{"artifact_id": "art_1", "role": "reflection_lens_doc", "lens_id": "lens_a", "path": "l.md", "sha256": "ab",
				"size_bytes": int64(12), "valid": false, "problems": []string{"no heading"}}},
	} {
		if got, want := marshalJSON(t, tc.typed), marshalJSON(t, tc.before); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

// TestHandlerAnswersMatchMaps: the claim, candidate, feed, literature,
// experiment, artifact, review and catalogue answers encode as the maps
// their handlers built before.
func TestHandlerAnswersMatchMaps(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC)
	cl := models.Claim{ID: "cl_1", ProjectID: "prj_1", Statement: "s", Confidence: "medium", Status: "active"}
	cls := []models.Claim{cl}
	var noClaims []models.Claim
	cand := models.Candidate{ID: "cand_1", Name: "resnet", MetricsJSON: `{"acc":0.9}`, PrimaryMetric: "acc", CreatedAt: at}
	oldView := func(c models.Candidate) map[string]any {
		var m map[string]float64
		_ = json.Unmarshal([]byte(c.MetricsJSON), &m)
		return map[string]any{"candidate_id": c.ID, "name": c.Name, "source_kind": c.SourceKind, "source_ref": c.SourceRef, "metrics": m,
			"primary_metric": c.PrimaryMetric, "higher_is_better": c.HigherIsBetter, "validation_summary": c.ValidationSummary, "created_at": c.CreatedAt}
	}
	stage := models.CandidateStage{ID: "stg_1", CandidateID: "cand_1", StageKind: "git", StageRef: "main"}
	proms := []models.Promotion{{ID: "pr_1", CandidateID: "cand_1", Seq: 1, CreatedAt: at}}
	post := models.FeedPost{ID: "fp_1", Seq: 3, Handle: "main", Kind: "note", Text: "hi", Thread: "fp_1", CreatedAt: at}
	oldPost := func(p models.FeedPost) map[string]any {
		return map[string]any{"post_id": p.ID, "seq": p.Seq, "handle": p.Handle, "kind": p.Kind, "text": p.Text, "attachments": []any{},
			"thread": p.Thread, "in_reply_to": p.InReplyTo, "quote_of": p.QuoteOf, "created_at": p.CreatedAt}
	}
	replayed := func(v postJSON, r bool) postJSON { v.Replayed = &r; return v }
	withReplayed := func(m map[string]any, r bool) map[string]any { m["replayed"] = r; return m }
	doi := "10.1/x"
	citeT := citationJSON{ID: "cit_1", DOI: &doi, Targets: []litTarget{}, CreatedAt: at}
	cite := map[string]any{"citation_id": "cit_1", "doi": "10.1/x", "targets": []litTarget{}, "created_at": at, "note": "", "title": ""}
	schema := map[string]any{"type": "object"}
	views := reviewViews([]models.ReviewRequest{{ID: "rr_1", TargetType: "experiment", TargetID: "exp_1", Kind: "design", Role: "human", ExpiresAt: at}})
	exp := models.Experiment{ID: "exp_1", Name: "lr", Intent: "i", Status: "draft", Gate: "g", NextAction: "n", Attempt: 2}
	summaryTyped := experimentSummary(exp)
	summary := map[string]any{"experiment_id": "exp_1", "name": "lr", "intent": "i", "status": "draft", "current_gate": "g",
		"next_action": "n", "attempt_index": 2}
	for _, tc := range []struct {
		name   string
		typed  any
		before any
	}{
		{"claim.create", claimAnswer{Claim: cl}, map[string]any{"claim": cl}},
		{"claim.list", claimsAnswer{Claims: &cls}, map[string]any{"claims": &cls}},
		{"claim.list, none", claimsAnswer{Claims: &noClaims}, map[string]any{"claims": &noClaims}},
		{"candidate.submit", candidateSubmitted{Candidate: candidateView(cand), CandidateID: "cand_1", Created: true},
			map[string]any{"candidate": oldView(cand), "candidate_id": "cand_1", "created": true}},
		{"candidate.stage", candidateStaged{Stage: stage, CandidateID: "cand_1", Staged: true},
			map[string]any{"stage": stage, "candidate_id": "cand_1", "staged": true}},
		{"candidate.promote", candidatePromoted{Champion: candidateView(cand), ChampionID: "cand_1", Promoted: false},
			map[string]any{"champion": oldView(cand), "champion_id": "cand_1", "promoted": false}},
		{"candidate.list, no champion", candidateListAnswer{Candidates: []candidateJSON{candidateView(cand)}, Promotions: nil},
			map[string]any{"champion": nil, "champion_id": "", "candidates": []map[string]any{oldView(cand)}, "promotions": []models.Promotion(nil)}},
		{"candidate.list, champion", func() any {
			v := candidateView(cand)
			return candidateListAnswer{Candidates: []candidateJSON{v}, Champion: &v, ChampionID: "cand_1", Promotions: proms}
		}(), map[string]any{"champion": oldView(cand), "champion_id": "cand_1", "candidates": []map[string]any{oldView(cand)}, "promotions": proms}},
		{"candidate.list, empty", candidateListAnswer{Candidates: []candidateJSON{}, Promotions: []models.Promotion{}},
			map[string]any{"champion": nil, "champion_id": "", "candidates": []map[string]any{}, "promotions": []models.Promotion{}}},
		{"feed.register", feedHandleAnswer{Handle: "main", Role: "main", Bio: "", Created: true},
			map[string]any{"handle": "main", "role": "main", "bio": "", "created": true}},
		{"feed.post", feedPostAnswer{Post: replayed(postView(post), false)}, map[string]any{"post": withReplayed(oldPost(post), false)}},
		{"feed.post, replayed", feedPostAnswer{Post: replayed(postView(post), true)}, map[string]any{"post": withReplayed(oldPost(post), true)}},
		{"feed.list, last page", feedListAnswer{Posts: []postJSON{postView(post)}, Limit: 30},
			map[string]any{"posts": []map[string]any{oldPost(post)}, "limit": 30}},
		{"feed.list, more", feedListAnswer{Posts: []postJSON{}, Limit: 1, NextBeforeSeq: 3},
			map[string]any{"posts": []map[string]any{}, "limit": 1, "next_before_seq": int64(3)}},
		{"litreview.view", litreviewAnswer{Revision: 4, Sections: []litSectionJSON{{ID: "sec_1", Position: 0, Text: "# A", UpdatedAt: at}},
			Citations: []citationJSON{citeT}, Markdown: "# A"},
			map[string]any{"revision": int64(4), "sections": []map[string]any{{"section_id": "sec_1", "position": 0, "text": "# A", "updated_at": at}},
				"citations": []map[string]any{cite}, "markdown": "# A"}},
		{"litreview.view, empty", litreviewAnswer{Sections: []litSectionJSON{}, Citations: []citationJSON{}},
			map[string]any{"revision": int64(0), "sections": []map[string]any{}, "citations": []map[string]any{}, "markdown": ""}},
		{"litreview.edit", litEditAnswer{Op: "add", SectionID: "sec_1", Revision: 2, Replayed: true},
			map[string]any{"op": "add", "section_id": "sec_1", "revision": int64(2), "replayed": true}},
		{"litreview.cite", litCiteAnswer{Citation: citeT, Duplicate: false}, map[string]any{"citation": cite, "duplicate": false}},
		{"literature summary", literatureSummaryJSON{Revision: 9, SectionCount: 7, CitationCount: 2,
			Sections: []sectionTitleJSON{{ID: "sec_1", Position: 0, Title: "Intro"}}, SectionsTruncated: true},
			map[string]any{"revision": int64(9), "section_count": int64(7), "citation_count": int64(2),
				"sections": []map[string]any{{"section_id": "sec_1", "position": 0, "title": "Intro"}}, "sections_truncated": true}},
		{"experiment.create", experimentCreated{Experiment: summaryTyped, ExperimentID: "exp_1", Created: true, Folder: "experiments/lr/",
			WorkflowID: "research-experiment-exp_1", Next: "call workflow.status_and_next with this experiment_id"},
			map[string]any{"experiment": summary, "experiment_id": "exp_1", "created": true, "folder": "experiments/lr/",
				"workflow_id": "research-experiment-exp_1", "next": "call workflow.status_and_next with this experiment_id"}},
		{"experiment.list", experimentsAnswer{Experiments: []experimentSummaryResp{summaryTyped}, Authority: "a"},
			map[string]any{"experiments": []map[string]any{summary}, "authority": "a"}},
		{"artifact.find", artifactsAnswer{Artifacts: []artifactViewResp{artifactView(models.Artifact{ID: "art_1", CreatedAt: at})}},
			map[string]any{"artifacts": []map[string]any{{"artifact_id": "art_1", "target_type": "", "target_id": "", "role": "", "path": "",
				"title": "", "attempt_index": 0, "uploaded": false, "created_at": at}}}},
		{"experiment.exhibit", exhibitAnswer{ExperimentID: "exp_1", ReadOnly: true, Files: []exhibitFile{{ArtifactID: "art_1", Path: "results/metrics.json",
			SHA256: "ab", Attempt: 1, Metrics: map[string]float64{"acc": 0.9}}}},
			map[string]any{"experiment_id": "exp_1", "read_only": true, "files": []map[string]any{{"artifact_id": "art_1", "path": "results/metrics.json",
				"sha256": "ab", "attempt_index": 1, "metrics": map[string]float64{"acc": 0.9}}}}},
		{"experiment.exhibit, no files", exhibitAnswer{ExperimentID: "exp_1", ReadOnly: true, Files: []exhibitFile{}},
			map[string]any{"experiment_id": "exp_1", "read_only": true, "files": []map[string]any{}}},
		{"review.status", reviewRequestsAnswer{Requests: views}, map[string]any{"review_requests": views}},
		{"tool list", toolList{Tools: []toolEntry{{Name: "claim.create", Description: "d", InputSchema: schema, Hidden: false, ReadOnly: false}}, Public: 1, Hidden: 0},
			map[string]any{"tools": []map[string]any{{"name": "claim.create", "description": "d", "inputSchema": schema, "hidden": false, "read_only": false}},
				"public": 1, "hidden": 0}},
	} {
		if got, want := marshalJSON(t, tc.typed), marshalJSON(t, tc.before); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

// TestSnapshotMatchesMap: a review target's snapshot encodes as the map
// the snapshot methods built before (the reviewer is shown it and the
// request row stores it).
func TestSnapshotMatchesMap(t *testing.T) {
	exp := experimentAt(gates.DesignReview)
	exp.Artifacts = map[string]wf.ArtifactRef{"plan": {ArtifactID: "art_new", Role: "plan", Attempt: 2}, "report": {ArtifactID: "art_old", Role: "report", Attempt: 1}}
	oldExperiment := map[string]any{"target_type": targetExperiment, "target_id": "exp_1", "status": exp.Status, "attempt_index": 2,
		"artifacts": []map[string]any{{"artifact_id": "art_new", "role": "plan", "attempt_index": 2}}, "snapshot_token": exp.SnapshotToken()}
	wave := wf.ReflectionState{ReflectionID: "ref_1", Status: rg.Consolidating, Attempt: 1, ProposalRevision: 3,
		Artifacts: map[string]wf.ArtifactRef{"reflection_doc": {ArtifactID: "art_doc", Role: "reflection_doc", Attempt: 1}}}
	oldWave := func(w wf.ReflectionState) map[string]any {
		m := map[string]any{"target_type": targetReflection, "target_id": w.ReflectionID, "status": w.Status, "attempt_index": w.Attempt,
			"proposal_revision": w.ProposalRevision, "artifacts": []map[string]any{{"artifact_id": "art_doc", "role": "reflection_doc",
				"key": "reflection_doc", "attempt_index": 1}}, "snapshot_token": w.SnapshotToken()}
		if w.Proposal != nil {
			m["proposal_id"] = w.Proposal.ProposalID
		}
		return m
	}
	proposed := wave
	proposed.Proposal = &wf.ProposalRef{ProposalID: "cp_1", Revision: 3}
	fresh := wave
	fresh.ProposalRevision, fresh.Artifacts = 0, nil
	oldFresh := oldWave(fresh)
	oldFresh["artifacts"] = []map[string]any{}
	for _, tc := range []struct {
		name   string
		typed  any
		before any
	}{
		{"experiment", experimentTarget{st: exp}.snapshot(), oldExperiment},
		{"reflection, no proposal", reflectionTarget{st: wave}.snapshot(), oldWave(wave)},
		{"reflection, proposal", reflectionTarget{st: proposed}.snapshot(), oldWave(proposed)},
		{"reflection, revision 0, no artifacts", reflectionTarget{st: fresh}.snapshot(), oldFresh},
	} {
		if got, want := marshalJSON(t, tc.typed), marshalJSON(t, tc.before); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

// TestRequestAndErrorBodiesMatchMaps: review.request's answer and a
// refused call's body encode byte for byte as their maps did.
func TestRequestAndErrorBodiesMatchMaps(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := &Service{Now: func() time.Time { return now }}
	exp := experimentTarget{st: experimentAt(gates.DesignReview), name: "lr-sweep"}
	a, err := s.newReviewRequest(&Call{}, models.Project{ID: "prj_1"}, exp, reviewArgs{Role: "design_reviewer"})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Handoff
	before := map[string]any{"review_request_id": a.RequestID, "reviewer_capability": a.Capability, "role": a.Role,
		"target_snapshot_id": a.SnapshotID, "target_snapshot": exp.snapshot(), "expires_at": a.ExpiresAt,
		"reviewer_handoff": map[string]any{"role": h.Role, "skill": "design-review", "target_type": "experiment", "target_id": "exp_1",
			"read_only": true, "start_tool": "review.start", "submit_tool": "review.submit", "spawn_prompt": h.SpawnPrompt}}
	if got, want := marshalJSON(t, a), marshalJSON(t, before); got != want {
		t.Errorf("review.request:\n got %s\nwant %s", got, want)
	}
	te := toolErr(CodeGateBlocked, "/target_id", "no review is due")
	if got, want := marshalJSON(t, errorBody{Error: te}), marshalJSON(t, map[string]any{"error": te}); got != want {
		t.Errorf("error body:\n got %s\nwant %s", got, want)
	}
}
