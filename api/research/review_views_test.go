package research

import (
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

// TestReviewViewsJSON pins review.status's rows and review.start's answer
// to the JSON the handlers wrote as untyped maps.
func TestReviewViewsJSON(t *testing.T) {
	exp := time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC)
	created := exp.Add(-time.Hour)
	r := models.ReviewRequest{ID: "rr_1", ProjectID: "prj_1", TargetType: "reflection", TargetID: "ref_1", Role: "reflection_reviewer",
		Status: models.ReviewStarted, ExpiresAt: exp, CreatedAt: created,
		SnapshotJSON: `{"target_type":"reflection","target_id":"ref_1","attempt_index":2,"artifacts":[]}`}
	before := []map[string]any{{"review_request_id": r.ID, "project_id": r.ProjectID, "target_type": r.TargetType,
		"target_id": r.TargetID, "role": r.Role, "status": r.Status, "expires_at": r.ExpiresAt, "created_at": r.CreatedAt}}
	if got, want := canonicalJSON(t, reviewViews([]models.ReviewRequest{r})), canonicalJSON(t, before); got != want {
		t.Fatalf("review.status rows changed:\n got %s\nwant %s", got, want)
	}
	if got := canonicalJSON(t, reviewViews(nil)); got != "[]" {
		t.Fatalf("no requests must list [], got %s", got)
	}
	sess := models.ReviewSession{ID: "rs_1"}
	beforeStart := map[string]any{"review_session_id": sess.ID, "review_request_id": r.ID, "role": r.Role, "project_id": r.ProjectID,
		"target_snapshot": map[string]any{"target_type": "reflection", "target_id": "ref_1", "attempt_index": 2, "artifacts": []any{}},
		"read_only":       true, "expires_at": r.ExpiresAt}
	if got, want := canonicalJSON(t, newReviewStartAnswer(sess, r)), canonicalJSON(t, beforeStart); got != want {
		t.Fatalf("review.start answer changed:\n got %s\nwant %s", got, want)
	}
}
