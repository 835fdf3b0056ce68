package research

import (
	"encoding/json"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

// reviewRequestView is one review request as review.status and the
// operator's pending list show it.
type reviewRequestView struct {
	RequestID  string    `json:"review_request_id"`
	ProjectID  string    `json:"project_id"`
	TargetType string    `json:"target_type"`
	TargetID   string    `json:"target_id"`
	Role       string    `json:"role"`
	Status     string    `json:"status"`
	ExpiresAt  time.Time `json:"expires_at"`
	CreatedAt  time.Time `json:"created_at"`
}

func reviewViews(rs []models.ReviewRequest) []reviewRequestView {
	out := make([]reviewRequestView, 0, len(rs))
	for _, r := range rs {
		out = append(out, reviewRequestView{RequestID: r.ID, ProjectID: r.ProjectID, TargetType: r.TargetType,
			TargetID: r.TargetID, Role: r.Role, Status: r.Status, ExpiresAt: r.ExpiresAt, CreatedAt: r.CreatedAt})
	}
	return out
}

// reviewStartAnswer is review.start's answer: the session opened and the
// snapshot the request pinned.
type reviewStartAnswer struct {
	SessionID string         `json:"review_session_id"`
	RequestID string         `json:"review_request_id"`
	Role      string         `json:"role"`
	ProjectID string         `json:"project_id"`
	Snapshot  map[string]any `json:"target_snapshot"`
	ReadOnly  bool           `json:"read_only"`
	ExpiresAt time.Time      `json:"expires_at"`
}

func newReviewStartAnswer(sess models.ReviewSession, r models.ReviewRequest) reviewStartAnswer {
	var snap map[string]any
	_ = json.Unmarshal([]byte(r.SnapshotJSON), &snap)
	return reviewStartAnswer{SessionID: sess.ID, RequestID: r.ID, Role: r.Role, ProjectID: r.ProjectID, Snapshot: snap,
		ReadOnly: true, ExpiresAt: r.ExpiresAt}
}
