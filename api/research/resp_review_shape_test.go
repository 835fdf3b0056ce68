package research

import (
	"encoding/json"
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
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
