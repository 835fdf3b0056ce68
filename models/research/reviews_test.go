package research_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

func openRequest(id, role string, expires time.Time) research.ReviewRequest {
	return research.ReviewRequest{ID: id, ProjectID: "prj", TargetType: "experiment", TargetID: "exp", Kind: "design", Role: role,
		ProducerSessionID: "main", CapabilityHash: "cap_" + id, SnapshotToken: "s", SnapshotJSON: "{}", Status: research.ReviewRequested, ExpiresAt: expires}
}

// TestCreateReviewRequest_OneReviewOfAKindPerTargetAtATime: a request of
// another role beside an open one is refused and writes nothing; the same
// role supersedes; an expired one no longer holds the target.
func TestCreateReviewRequest_OneReviewOfAKindPerTargetAtATime(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		soon := time.Now().Add(time.Hour)
		if err := research.CreateReviewRequest(ctx, db, openRequest("rr_human", "human", soon), nil); err != nil {
			t.Fatal(err)
		}
		err := research.CreateReviewRequest(ctx, db, openRequest("rr_agent", "design_reviewer", soon), nil)
		var me *research.Error
		if !errors.As(err, &me) || me.Code != research.CodeConflict || me.Details["review_request_id"] != "rr_human" {
			t.Fatalf("second role beside an open human review: %v", err)
		}
		var n int64
		db.Model(&research.ReviewRequest{}).Where("id = ?", "rr_agent").Count(&n)
		if n != 0 {
			t.Fatal("the refused request was stored")
		}
		if err := research.CreateReviewRequest(ctx, db, openRequest("rr_human2", "human", soon), nil); err != nil {
			t.Fatalf("same role: %v", err)
		}
		var old research.ReviewRequest
		if db.Where("id = ?", "rr_human").Take(&old); old.Status != research.ReviewSuperseded {
			t.Fatalf("same role did not supersede: %s", old.Status)
		}
		if err := db.Model(&research.ReviewRequest{}).Where("id = ?", "rr_human2").Update("expires_at", time.Now().Add(-time.Minute)).Error; err != nil {
			t.Fatal(err)
		}
		if err := research.CreateReviewRequest(ctx, db, openRequest("rr_agent2", "design_reviewer", soon), nil); err != nil {
			t.Fatalf("after the human request expired: %v", err)
		}
	})
}

// TestCreateReviewRequest_AStaleReviewOfAnotherRoleIsSuperseded: an open
// human review of an older snapshot could never pass, so an agent's
// request on the current snapshot supersedes it instead of being refused;
// the human's later verdict then meets a superseded request, not a
// recorded-and-ignored one.
func TestCreateReviewRequest_AStaleReviewOfAnotherRoleIsSuperseded(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		soon := time.Now().Add(time.Hour)
		stale := openRequest("rr_human_old", "human", soon)
		stale.SnapshotToken = "snapshot-before-the-new-plan"
		if err := research.CreateReviewRequest(ctx, db, stale, nil); err != nil {
			t.Fatal(err)
		}
		if err := research.CreateReviewRequest(ctx, db, openRequest("rr_agent_now", "design_reviewer", soon), nil); err != nil {
			t.Fatalf("a request on the current snapshot beside a stale human review: %v", err)
		}
		var old research.ReviewRequest
		if db.Where("id = ?", "rr_human_old").Take(&old); old.Status != research.ReviewSuperseded {
			t.Fatalf("the stale human review is %s, want superseded", old.Status)
		}
	})
}
