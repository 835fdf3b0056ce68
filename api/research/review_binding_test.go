package research

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/mocks"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
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

// TestReviewStart_AChangedTargetIsRefusedWithBothSnapshots: a request made
// for a snapshot the target has left is refused as a conflict naming both
// snapshots, and neither the request nor any session changes.
func TestReviewStart_AChangedTargetIsRefusedWithBothSnapshots(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := reviewService(t, db)
		if err := db.Model(&models.ReviewRequest{}).Where("id = ?", "rr_design").
			Update("snapshot_json", `{"status":"design_review","attempt_index":0,"artifacts":[]}`).Error; err != nil {
			t.Fatal(err)
		}
		st := wf.ExperimentState{ProjectID: "prj_r", ExperimentID: "exp_r", Status: "design_review",
			Artifacts: map[string]wf.ArtifactRef{"plan": {ArtifactID: "art_new", Role: "plan", SHA256: "bb"}}}
		s.Temporal.(*mocks.Client).On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_r"), "", wf.StateQuery).
			Return(queriedState{st}, nil)
		_, terr := s.Invoke(context.Background(), reviewerKey, "review.start", startArgs("rr_design", "rp_design", "rev"))
		if terr == nil || terr.Code != CodeConflict {
			t.Fatalf("review.start on a changed target: %+v", terr)
		}
		raw, _ := json.Marshal(terr.Details)
		var details struct {
			Requested struct{ Status string } `json:"requested_snapshot"`
			Current   targetSnapshot          `json:"current_snapshot"`
		}
		if err := json.Unmarshal(raw, &details); err != nil || details.Requested.Status != "design_review" ||
			details.Current.SnapshotToken != st.SnapshotToken() || len(details.Current.Artifacts) != 1 ||
			details.Current.Artifacts[0].ArtifactID != "art_new" {
			t.Fatalf("details %s (%v): want the requested and the current snapshot", raw, err)
		}
		assertRequestUntouched(t, db, "rr_design")
	})
}

// TestReviewStart_AStartTheWorkflowWasNotToldOfCanBeRetried: when the
// target's workflow cannot be told (Temporal or every worker unreachable),
// review.start answers a retryable error and records nothing, so the
// reviewer's retry opens the session instead of finding the single-use
// capability spent.
func TestReviewStart_AStartTheWorkflowWasNotToldOfCanBeRetried(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := reviewService(t, db)
		tc := s.Temporal.(*mocks.Client)
		st := wf.ExperimentState{ProjectID: "prj_r", ExperimentID: "exp_r", Status: "design_review"}
		if err := db.Model(&models.ReviewRequest{}).Where("id = ?", "rr_design").Update("snapshot_token", st.SnapshotToken()).Error; err != nil {
			t.Fatal(err)
		}
		tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_r"), "", wf.StateQuery).Return(queriedState{st}, nil)
		tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(nil, serviceerror.NewUnavailable("no worker accepted the update")).Once()
		_, terr := s.Invoke(context.Background(), reviewerKey, "review.start", startArgs("rr_design", "rp_design", "rev"))
		if terr == nil || terr.Code != CodeUnavailable {
			t.Fatalf("review.start with the workflow unreachable: %+v, want unavailable", terr)
		}
		assertRequestUntouched(t, db, "rr_design")

		told := &mocks.WorkflowUpdateHandle{}
		told.On("Get", mock.Anything, mock.Anything).Return(nil)
		tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(told, nil).Once()
		out, terr := s.Invoke(context.Background(), reviewerKey, "review.start", startArgs("rr_design", "rp_design", "rev"))
		if terr != nil {
			t.Fatalf("the retried review.start: %+v", terr)
		}
		var r models.ReviewRequest
		if err := db.Where("id = ?", "rr_design").Take(&r).Error; err != nil || r.Status != models.ReviewStarted {
			t.Fatalf("request after the retry: %+v, %v (answer %+v)", r, err, out)
		}
	})
}

// TestReviewRequest_ARequestTheWorkflowWasNotToldOfIsNotStored: when the
// target's workflow cannot be told, review.request answers a retryable
// error and stores nothing, so no orphan request holds the kind's one
// open review against another role.
func TestReviewRequest_ARequestTheWorkflowWasNotToldOfIsNotStored(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := reviewService(t, db)
		if err := db.Where("1 = 1").Delete(&models.ReviewRequest{}).Error; err != nil {
			t.Fatal(err)
		}
		tc := s.Temporal.(*mocks.Client)
		st := wf.ExperimentState{ProjectID: "prj_r", ExperimentID: "exp_r", Status: "design_review"}
		tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_r"), "", wf.StateQuery).Return(queriedState{st}, nil)
		tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(nil, serviceerror.NewUnavailable("no worker accepted the update")).Once()
		args := json.RawMessage(`{"project_id":"prj_r","target_type":"experiment","target_id":"exp_r","role":"design_reviewer"}`)
		if _, terr := s.Invoke(context.Background(), producerKey, "review.request", args); terr == nil || terr.Code != CodeUnavailable {
			t.Fatalf("review.request with the workflow unreachable: %+v, want unavailable", terr)
		}
		var n int64
		if err := db.Model(&models.ReviewRequest{}).Count(&n).Error; err != nil || n != 0 {
			t.Fatalf("%d review requests stored (%v), want none", n, err)
		}
	})
}
