package research

import (
	"strings"
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestViewsMatchMaps: experiment summaries, artifact views, code views
// and review gates encode as the maps their builders made before, in
// each of their shapes.
func TestViewsMatchMaps(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC)
	oldArtifact := func(a models.Artifact) map[string]any {
		v := map[string]any{"artifact_id": a.ID, "target_type": a.TargetType, "target_id": a.TargetID, "role": a.Role, "path": a.Path,
			"title": a.Title, "attempt_index": a.Attempt, "uploaded": a.UploadedAt != nil, "created_at": a.CreatedAt}
		if a.UploadedAt != nil {
			v["sha256"], v["size_bytes"], v["uploaded_at"], v["valid"] = a.SHA256, a.Size, a.UploadedAt, a.Valid
			if a.Problems != "" {
				v["problems"] = strings.Split(a.Problems, "\n")
			}
		}
		return v
	}
	oldCode := func(c models.ExperimentCode, ok bool) map[string]any {
		null := func(v string) any {
			if v == "" {
				return nil
			}
			return v
		}
		if !ok {
			return map[string]any{"branch": nil, "base_sha": nil, "head_sha": nil}
		}
		return map[string]any{"branch": null(c.Branch), "base_sha": null(c.BaseSHA), "base_source": null(c.BaseSource),
			"head_sha": null(c.HeadSHA), "head_source": null(c.HeadSource)}
	}
	p := models.Project{ID: "prj_1"}
	oldGate := func(kind string, r wf.ReviewState, snapshot string) map[string]any {
		status := reviewGateStatus(r, snapshot)
		g := map[string]any{"role": reviewRoleOf(p, kind), "skill": kind + "-review", "target_type": "experiment", "target_id": "exp_1",
			"status": status, "label": kind + " review", "read_only": true}
		if r.RequestID != "" && status != "none" {
			g["request_id"], g["expires_at"] = r.RequestID, r.ExpiresAt
		}
		if r.Status == wf.ReviewStatusNone && r.ExpiredRequestID != "" {
			g["expired_request_id"] = r.ExpiredRequestID
			g["hint"] = "the last review request expired unanswered; call review.request again"
		}
		if g["status"] == "attested_blocked" {
			g["hint"] = "the review is of an earlier snapshot; the target changed since, so request a new review"
		}
		return g
	}
	e := models.Experiment{ID: "exp_1", ProjectID: "prj_1", Name: "lr", Intent: "i", Status: "draft", Gate: "g", NextAction: "n", Attempt: 1}
	operator := experimentSummary(e)
	operator.ProjectID, operator.WorkflowID = e.ProjectID, wf.ExperimentWorkflowID(e.ID)
	summary := map[string]any{"experiment_id": e.ID, "name": e.Name, "intent": e.Intent, "status": e.Status,
		"current_gate": e.Gate, "next_action": e.NextAction, "attempt_index": e.Attempt}
	withOperator := map[string]any{"project_id": e.ProjectID, "workflow_id": wf.ExperimentWorkflowID(e.ID)}
	for k, v := range summary {
		withOperator[k] = v
	}
	pending := models.Artifact{ID: "art_1", TargetType: "experiment", TargetID: "exp_1", Role: "plan", Path: "p.md", Title: "t", Attempt: 1, CreatedAt: at}
	uploaded, bad := pending, pending
	uploaded.UploadedAt, uploaded.SHA256, uploaded.Size, uploaded.Valid = &at, "ab", 12, true
	bad.UploadedAt, bad.Problems = &at, "no title\nno summary"
	withContent := artifactView(uploaded)
	text := ""
	withContent.Content = &text
	contentMap := oldArtifact(uploaded)
	contentMap["content"] = ""
	full := models.ExperimentCode{Branch: "work/a", BaseSHA: "abc", BaseSource: "evidence", HeadSHA: "def", HeadSource: "push"}
	part := models.ExperimentCode{Branch: "work/a", HeadSHA: "def"}
	for _, tc := range []struct {
		name          string
		typed, before any
	}{
		{"experiment summary", experimentSummary(e), summary},
		{"operator's experiment", operator, withOperator},
		{"artifact, not uploaded", artifactView(pending), oldArtifact(pending)},
		{"artifact, uploaded", artifactView(uploaded), oldArtifact(uploaded)},
		{"artifact, with problems", artifactView(bad), oldArtifact(bad)},
		{"artifact, with content", withContent, contentMap},
		{"code, not recorded", codeView(models.ExperimentCode{}, false), oldCode(models.ExperimentCode{}, false)},
		{"code, recorded", codeView(full, true), oldCode(full, true)},
		{"code, partly recorded", codeView(part, true), oldCode(part, true)},
		{"review gate, none", reviewGateOf(p, "design", "experiment", "exp_1", wf.ReviewState{}, "s"), oldGate("design", wf.ReviewState{}, "s")},
		{"review gate, expired", reviewGateOf(p, "design", "experiment", "exp_1", wf.ReviewState{ExpiredRequestID: "rr_x"}, "s"),
			oldGate("design", wf.ReviewState{ExpiredRequestID: "rr_x"}, "s")},
		{"review gate, requested", reviewGateOf(p, "design", "experiment", "exp_1", wf.ReviewState{Status: wf.ReviewStatusRequested, RequestID: "rr_1", ExpiresAt: at}, "s"),
			oldGate("design", wf.ReviewState{Status: wf.ReviewStatusRequested, RequestID: "rr_1", ExpiresAt: at}, "s")},
		{"review gate, stale pass", reviewGateOf(p, "design", "experiment", "exp_1", wf.ReviewState{Status: wf.ReviewStatusPassed, RequestID: "rr_2", SnapshotToken: "old"}, "s"),
			oldGate("design", wf.ReviewState{Status: wf.ReviewStatusPassed, RequestID: "rr_2", SnapshotToken: "old"}, "s")},
	} {
		if got, want := marshalJSON(t, tc.typed), marshalJSON(t, tc.before); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

// TestRetentionChecklistMatchesMaps: the checklist's shapes (pulls
// unreadable, outputs unchecked, each kind of entry) encode as the maps
// retentionChecklist built before.
func TestRetentionChecklistMatchesMaps(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC)
	msg, size := "boom", int64(7)
	base := map[string]any{"sandbox_uid": "sbx_1", "sandbox_id": "sbx_1", "status": "running", "workdir": "/w", "expires_at": at}
	with := func(kv map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range kv {
			m[k] = v
		}
		return m
	}
	item := func() retentionChecklistResp {
		return retentionChecklistResp{SandboxUID: "sbx_1", SandboxID: "sbx_1", Status: "running", Workdir: "/w", ExpiresAt: at}
	}
	failed := item()
	failed.Error = &msg
	unchecked := item()
	none, noRuns, noObjects := []unpulledOutputResp{}, []runningCommandResp{}, []unpinnedObjectResp{}
	unchecked.OutputsUnchecked, unchecked.RunningCommandsUnchecked = &msg, &msg
	unchecked.UnpulledOutputs, unchecked.RunningCommands, unchecked.UnpinnedStorage = &none, &noRuns, &noObjects
	full := item()
	outs := []unpulledOutputResp{{Path: "a", Note: "too big"}, {Path: "b", SizeBytes: &size}}
	runs := []runningCommandResp{{Seq: 2, Command: "train", StartedAt: at}}
	objs := []unpinnedObjectResp{{ObjectID: "obj_1", Name: "n", Path: "b", ExpiresAt: &at}, {ObjectID: "obj_2", Name: "m", Path: "c"}}
	full.UnpulledOutputs, full.RunningCommands, full.UnpinnedStorage = &outs, &runs, &objs
	var noExpiry *time.Time
	for _, tc := range []struct {
		name          string
		typed, before any
	}{
		{"pulls unreadable", failed, with(map[string]any{"error": msg})},
		{"nothing checked", unchecked, with(map[string]any{"outputs_unchecked": msg, "running_commands_unchecked": msg,
			"unpulled_outputs": []map[string]any{}, "running_commands": []map[string]any{}, "unpinned_storage": []map[string]any{}})},
		{"every kind of entry", full, with(map[string]any{
			"unpulled_outputs": []map[string]any{{"path": "a", "note": "too big"}, {"path": "b", "size_bytes": size}},
			"running_commands": []map[string]any{{"seq": 2, "command": "train", "started_at": at}},
			"unpinned_storage": []map[string]any{{"object_id": "obj_1", "name": "n", "path": "b", "expires_at": &at},
				{"object_id": "obj_2", "name": "m", "path": "c", "expires_at": noExpiry}}})},
	} {
		if got, want := marshalJSON(t, tc.typed), marshalJSON(t, tc.before); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}

// TestDocRefMatchesMaps: a docRef, with and without a lens and content,
// and a missing one, encode as the maps docRef built before.
func TestDocRefMatchesMaps(t *testing.T) {
	text := ""
	base := func() map[string]any {
		return map[string]any{"artifact_id": "art_1", "role": "lens_docs", "path": "p.md", "sha256": "ab", "valid": true, "tldr": "t"}
	}
	lens, content := base(), base()
	lens["lens_id"] = "risk"
	content["content"] = text
	var missing map[string]any
	var none *docRefResp
	ref := docRefResp{ArtifactID: "art_1", Role: "lens_docs", Path: "p.md", SHA256: "ab", Valid: true, TLDR: "t"}
	withLens, withContent := ref, ref
	withLens.LensID, withContent.Content = "risk", &text
	for _, tc := range []struct {
		name          string
		typed, before any
	}{
		{"plain", ref, base()},
		{"lens doc", withLens, lens},
		{"with content", withContent, content},
		{"none named", none, missing},
		{"synthesis", map[string]*docRefResp{"project_graph": &ref}, map[string]map[string]any{"project_graph": base()}},
		{"prior wave", reflectionPriorResp{ReflectionID: "rf_1", ProjectGraph: &ref}, map[string]any{"reflection_id": "rf_1",
			"published_at": nil, "project_graph": base(), "reflection_doc": missing}},
	} {
		if got, want := marshalJSON(t, tc.typed), marshalJSON(t, tc.before); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, want)
		}
	}
}
