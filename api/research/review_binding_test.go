package research

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.temporal.io/sdk/mocks"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// reviewService is a service over one experiment with a design review
// requested by the producer's key and a human review; Temporal is a mock
// that no refused call may reach.
func reviewService(t *testing.T, db *gorm.DB) *Service {
	t.Helper()
	s := newTestService(t)
	s.DB, s.Temporal = db, &mocks.Client{}
	for _, row := range []any{
		&models.Project{ID: "prj_r", Name: "reviews", CreatedBy: "op"},
		&models.Experiment{ID: "exp_r", ProjectID: "prj_r", Name: "target", Status: "design_review"},
		reviewRequestRow("rr_design", "design_reviewer", "rp_design"),
		reviewRequestRow("rr_human", models.RoleHuman, "rp_human"),
	} {
		if err := db.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func reviewRequestRow(id, role, capability string) *models.ReviewRequest {
	return &models.ReviewRequest{ID: id, ProjectID: "prj_r", TargetType: "experiment", TargetID: "exp_r", Kind: "design", Role: role,
		ProducerSessionID: "main", ProducerCredential: "cred_producer", CapabilityHash: platform.HashSecret(capability),
		SnapshotToken: "snap", SnapshotJSON: "{}", Status: models.ReviewRequested, ExpiresAt: time.Now().Add(time.Hour)}
}

var (
	producerKey = platform.Principal{CredentialID: "cred_producer", Role: platform.RoleAgent, Projects: []string{"prj_r"}}
	reviewerKey = platform.Principal{CredentialID: "cred_reviewer", Role: platform.RoleAgent, Projects: []string{"prj_r"}}
)

func startArgs(id, capability, session string) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"review_request_id": id, "reviewer_capability": capability, "caller_session_id": session})
	return raw
}

// TestReviewStart_TheProducersKeyCannotReviewItsOwnTargetWhateverSessionItNames:
// the producer holds the capability and may name any session id; the
// session id proves nothing, the credential does.
func TestReviewStart_TheProducersKeyCannotReviewItsOwnTargetWhateverSessionItNames(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := reviewService(t, db)
		_, terr := s.Invoke(context.Background(), producerKey, "review.start", startArgs("rr_design", "rp_design", "a-different-session"))
		if terr == nil || terr.Code != "forbidden" || terr.Reason != "self_review" {
			t.Fatalf("self-review: %+v", terr)
		}
		assertRequestUntouched(t, db, "rr_design")
	})
}

// TestReviewStart_AHumanReviewGoesOnlyToOperators: an agent key holding a
// human review's capability cannot open it.
func TestReviewStart_AHumanReviewGoesOnlyToOperators(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := reviewService(t, db)
		_, terr := s.Invoke(context.Background(), reviewerKey, "review.start", startArgs("rr_human", "rp_human", "rev"))
		if terr == nil || terr.Code != "forbidden" || terr.Reason != "human_review" {
			t.Fatalf("agent opened a human review: %+v", terr)
		}
		assertRequestUntouched(t, db, "rr_human")
	})
}

// TestReviewSubmit_OnlyTheCredentialThatStartedTheSessionAnswersIt: the
// producer learning a reviewer's session id cannot answer in its place.
func TestReviewSubmit_OnlyTheCredentialThatStartedTheSessionAnswersIt(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := reviewService(t, db)
		if err := db.Model(&models.ReviewRequest{}).Where("id = ?", "rr_design").Update("status", models.ReviewStarted).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Create(&models.ReviewSession{ID: "rs_design", RequestID: "rr_design", CallerSessionID: "rev",
			OpenedByCredential: "cred_reviewer", OpenedByRole: "agent"}).Error; err != nil {
			t.Fatal(err)
		}
		args := json.RawMessage(`{"review_session_id":"rs_design","verdict":"pass","synopsis":"mine is fine"}`)
		_, terr := s.Invoke(context.Background(), producerKey, "review.submit", args)
		if terr == nil || terr.Code != "forbidden" || terr.Reason != "review_session_bound" {
			t.Fatalf("producer answered the reviewer's session: %+v", terr)
		}
		var sess models.ReviewSession
		if err := db.Where("id = ?", "rs_design").Take(&sess).Error; err != nil || sess.SubmittedAt != nil || sess.Verdict != "" {
			t.Fatalf("session changed: %+v, %v", sess, err)
		}
	})
}

func assertRequestUntouched(t *testing.T, db *gorm.DB, id string) {
	t.Helper()
	var r models.ReviewRequest
	if err := db.Where("id = ?", id).Take(&r).Error; err != nil || r.Status != models.ReviewRequested {
		t.Fatalf("request %s: %+v, %v", id, r, err)
	}
	var n int64
	db.Model(&models.ReviewSession{}).Where("request_id = ?", id).Count(&n)
	if n != 0 {
		t.Fatalf("a refused review.start opened %d sessions", n)
	}
}
