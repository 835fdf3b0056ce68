package research

import (
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// decisionRows are the records the api writes: an experiment with an
// artifact uploaded and one only submitted, and review requests in every
// state a forger could point at.
func decisionRows(t *testing.T, db *gorm.DB) {
	t.Helper()
	now := time.Now().UTC()
	rows := []any{
		&models.Project{ID: "prj_d", Name: "decisions", CreatedBy: "op"},
		&models.Experiment{ID: "exp_d", ProjectID: "prj_d", Name: "target", Status: "design_review"},
		&models.Experiment{ID: "exp_done", ProjectID: "prj_d", Name: "done", Status: "complete"},
		&models.Artifact{ID: "art_up", ProjectID: "prj_d", TargetType: "experiment", TargetID: "exp_d", Role: "plan", Path: "plan.md",
			UploadTokenHash: "h1", SHA256: "ab", Size: 9, Valid: false, Problems: "missing section ## Method\na TODO: placeholder is left unfilled", UploadedAt: &now},
		&models.Artifact{ID: "art_wait", ProjectID: "prj_d", TargetType: "experiment", TargetID: "exp_d", Role: "plan", Path: "plan.md", UploadTokenHash: "h2"},
		&models.Artifact{ID: "art_other", ProjectID: "prj_d", TargetType: "experiment", TargetID: "exp_done", Role: "plan", Path: "p", UploadTokenHash: "h3", UploadedAt: &now},
		review("rr_asked", models.ReviewRequested, "design_reviewer"),
		review("rr_ok", models.ReviewSubmitted, "design_reviewer"),
		&models.ReviewSession{ID: "rs_ok", RequestID: "rr_ok", CallerSessionID: "r", OpenedByCredential: "cred_reviewer", OpenedByRole: "agent",
			Verdict: "needs_changes", ReturnTo: "planned", Synopsis: "the record's synopsis", SubmittedAt: &now,
			FindingsJSON: `[{"note":"the method lacks a control"}]`, EvidenceJSON: `{"read":["plan.md"]}`},
		review("rr_self", models.ReviewSubmitted, "design_reviewer"),
		&models.ReviewSession{ID: "rs_self", RequestID: "rr_self", CallerSessionID: "other-session", OpenedByCredential: "cred_producer",
			OpenedByRole: "agent", Verdict: "pass", Synopsis: "mine is fine", SubmittedAt: &now},
		review("rr_human", models.ReviewSubmitted, models.RoleHuman),
		&models.ReviewSession{ID: "rs_human", RequestID: "rr_human", CallerSessionID: "x", OpenedByCredential: "cred_reviewer",
			OpenedByRole: "agent", Verdict: "pass", Synopsis: "a human, honest", SubmittedAt: &now},
		review("rr_old", models.ReviewSuperseded, "design_reviewer"),
	}
	for _, r := range rows {
		if err := db.Create(r).Error; err != nil {
			t.Fatal(err)
		}
	}
}

func review(id, status, role string) *models.ReviewRequest {
	return &models.ReviewRequest{ID: id, ProjectID: "prj_d", TargetType: "experiment", TargetID: "exp_d", Kind: "design", Role: role,
		ProducerSessionID: "main", ProducerCredential: "cred_producer", CapabilityHash: "cap_" + id, SnapshotToken: "snap",
		SnapshotJSON: "{}", Status: status, ExpiresAt: time.Now().Add(time.Hour)}
}

func verifyIn(t *testing.T, db *gorm.DB, q wf.DecisionQuery) (wf.DecisionRecord, error) {
	t.Helper()
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	a := &DecisionActivities{DB: db, Grace: time.Minute}
	env.RegisterActivity(a.VerifyDecision)
	v, err := env.ExecuteActivity(a.VerifyDecision, q)
	var rec wf.DecisionRecord
	if err == nil {
		err = v.Get(&rec)
	}
	return rec, err
}

func errType(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Type()
	}
	return ""
}

// TestVerifyDecision_OnlyARecordTheApiWroteBacksAGateSignal walks the
// forgeries a caller of the Temporal frontend can send with the values it
// knows; each is refused (or, while its record may still be committing,
// pending), and a backed signal returns the record's values.
func TestVerifyDecision_OnlyARecordTheApiWroteBacksAGateSignal(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		decisionRows(t, db)
		q := func(signal, id string, received time.Time) wf.DecisionQuery {
			return wf.DecisionQuery{Signal: signal, TargetType: "experiment", ProjectID: "prj_d", TargetID: "exp_d", RecordID: id, ReceivedAt: received}
		}
		now, long := time.Now(), time.Now().Add(-2*time.Minute)
		for _, c := range []struct {
			name     string
			q        wf.DecisionQuery
			wantType string
		}{
			{"artifact that does not exist", q(wf.ArtifactLandedSignal, "art_forged", now), wf.ErrTypeDecisionRefused},
			{"another target's artifact", q(wf.ArtifactLandedSignal, "art_other", now), wf.ErrTypeDecisionRefused},
			{"artifact whose bytes may still be committing", q(wf.ArtifactLandedSignal, "art_wait", now), wf.ErrTypeDecisionPending},
			{"artifact never uploaded", q(wf.ArtifactLandedSignal, "art_wait", long), wf.ErrTypeDecisionRefused},
			{"request that does not exist", q(wf.ReviewRequestedSignal, "rr_forged", now), wf.ErrTypeDecisionRefused},
			{"verdict on a request nobody answered", q(wf.ReviewVerdictSignal, "rr_asked", long), wf.ErrTypeDecisionRefused},
			{"verdict from the producer's own credential", q(wf.ReviewVerdictSignal, "rr_self", now), wf.ErrTypeDecisionRefused},
			{"human verdict from an agent key", q(wf.ReviewVerdictSignal, "rr_human", now), wf.ErrTypeDecisionRefused},
			{"superseded request", q(wf.ReviewRequestedSignal, "rr_old", now), wf.ErrTypeDecisionRefused},
			{"dependency that is still open", q(wf.DependencySettledSignal, "exp_d", long), wf.ErrTypeDecisionRefused},
			{"proposal that does not exist", q(wf.ProposalSubmittedSignal, "cp_forged", long), wf.ErrTypeDecisionRefused},
			{"signal that opens nothing", q("bogus", "x", now), wf.ErrTypeDecisionRefused},
		} {
			if _, err := verifyIn(t, db, c.q); errType(err) != c.wantType {
				t.Errorf("%s: err %v, want %s", c.name, err, c.wantType)
			}
		}
		rec, err := verifyIn(t, db, q(wf.ArtifactLandedSignal, "art_up", now))
		if err != nil || rec.Artifact == nil || rec.Artifact.Valid || rec.Artifact.SHA256 != "ab" || len(rec.Artifact.Problems) != 2 ||
			time.Since(rec.Artifact.UploadedAt) > time.Minute || time.Since(rec.Artifact.UploadedAt) < 0 {
			t.Errorf("uploaded artifact: %+v, %v", rec.Artifact, err)
		}
		rec, err = verifyIn(t, db, q(wf.ReviewVerdictSignal, "rr_ok", now))
		if err != nil || rec.Review == nil || rec.Review.Verdict != "needs_changes" || rec.Review.ReturnTo != "planned" ||
			rec.Review.Synopsis != "the record's synopsis" || rec.Review.SnapshotToken != "snap" || len(rec.Review.Findings) != 1 || rec.Review.Evidence["read"] == nil ||
			rec.Review.SubmittedAt.IsZero() {
			t.Errorf("answered review: %+v, %v", rec.Review, err)
		}
		rec, err = verifyIn(t, db, q(wf.ReviewRequestedSignal, "rr_asked", now))
		if err != nil || rec.Review == nil || rec.Review.Status != wf.RecordRequested || rec.Review.Role != "design_reviewer" {
			t.Errorf("requested review: %+v, %v", rec.Review, err)
		}
		rec, err = verifyIn(t, db, q(wf.DependencySettledSignal, "exp_done", now))
		if err != nil || rec.Dependency == nil || rec.Dependency.Status != gates.Complete {
			t.Errorf("settled dependency: %+v, %v", rec.Dependency, err)
		}
	})
}
