package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// DefaultDecisionGrace is how long after a signal the record it names may
// still be uncommitted: the api signals inside the transaction that
// writes the record, so a legitimate one commits within moments.
const DefaultDecisionGrace = 20 * time.Second

// DecisionActivities verify gate-opening signals against the records the
// api wrote once it had authenticated the caller.
type DecisionActivities struct {
	DB *gorm.DB
	// Grace overrides DefaultDecisionGrace.
	Grace time.Duration
}

// VerifyDecision returns the record behind a gate-opening signal, read
// from the database, or a non-retryable decision_refused error when none
// backs it (no record, another target's, superseded, or a human review
// not answered by an operator). A record not committed yet is a retryable
// decision_pending error until the grace after the signal has passed.
func (a *DecisionActivities) VerifyDecision(ctx context.Context, q wf.DecisionQuery) (wf.DecisionRecord, error) {
	rec, err := a.verify(ctx, q)
	var pe *pendingError
	switch {
	case errors.As(err, &pe):
		grace := a.Grace
		if grace == 0 {
			grace = DefaultDecisionGrace
		}
		if time.Since(q.ReceivedAt) < grace {
			return rec, temporal.NewApplicationError(pe.reason, wf.ErrTypeDecisionPending)
		}
		err = refuse("%s (still, %s after the signal)", pe.reason, grace)
	case err != nil && !isRefusal(err):
		return rec, err // a database failure: retried
	}
	if err != nil {
		activity.GetLogger(ctx).Warn("research: gate signal refused", "signal", q.Signal, "target", q.TargetID, "record", q.RecordID, "err", err)
	}
	return rec, err
}

func (a *DecisionActivities) verify(ctx context.Context, q wf.DecisionQuery) (wf.DecisionRecord, error) {
	switch q.Signal {
	case wf.ArtifactLandedSignal:
		return a.artifact(ctx, q)
	case wf.ReviewRequestedSignal, wf.ReviewStartedSignal, wf.ReviewVerdictSignal:
		return a.review(ctx, q)
	case wf.ProposalSubmittedSignal:
		return a.proposal(ctx, q)
	case wf.DependencySettledSignal:
		return a.dependency(ctx, q)
	}
	return wf.DecisionRecord{}, refuse("signal %q opens no gate", q.Signal)
}

func (a *DecisionActivities) artifact(ctx context.Context, q wf.DecisionQuery) (wf.DecisionRecord, error) {
	art, err := models.ArtifactByID(ctx, a.DB, q.RecordID)
	if errors.Is(err, models.ErrNoRecord) {
		return wf.DecisionRecord{}, refuse("no artifact %s", q.RecordID)
	}
	if err != nil {
		return wf.DecisionRecord{}, err
	}
	if art.ProjectID != q.ProjectID || art.TargetType != q.TargetType || art.TargetID != q.TargetID {
		return wf.DecisionRecord{}, refuse("artifact %s belongs to another target", art.ID)
	}
	if art.UploadedAt == nil {
		return wf.DecisionRecord{}, &pendingError{"artifact " + art.ID + " has no uploaded bytes"}
	}
	var problems []string
	if art.Problems != "" {
		problems = strings.Split(art.Problems, "\n")
	}
	return wf.DecisionRecord{Artifact: &wf.ReflectionArtifact{LensID: art.LensID, ArtifactRef: wf.ArtifactRef{ArtifactID: art.ID,
		Role: art.Role, Path: art.Path, Attempt: art.Attempt, SHA256: art.SHA256, Size: art.Size, Valid: art.Valid, Problems: problems,
		UploadedAt: art.UploadedAt.UTC()}}}, nil
}

func (a *DecisionActivities) review(ctx context.Context, q wf.DecisionQuery) (wf.DecisionRecord, error) {
	d, err := models.ReviewDecisionByID(ctx, a.DB, q.RecordID)
	if errors.Is(err, models.ErrNoRecord) {
		return wf.DecisionRecord{}, refuse("no review request %s", q.RecordID)
	}
	if err != nil {
		return wf.DecisionRecord{}, err
	}
	r := d.Request
	if r.ProjectID != q.ProjectID || r.TargetType != q.TargetType || r.TargetID != q.TargetID {
		return wf.DecisionRecord{}, refuse("review request %s is for another target", r.ID)
	}
	want := map[string][]string{wf.ReviewRequestedSignal: {models.ReviewRequested, models.ReviewStarted, models.ReviewSubmitted},
		wf.ReviewStartedSignal: {models.ReviewStarted, models.ReviewSubmitted}, wf.ReviewVerdictSignal: {models.ReviewSubmitted}}[q.Signal]
	switch {
	case r.Status == models.ReviewSuperseded:
		return wf.DecisionRecord{}, refuse("review request %s was superseded", r.ID)
	case !slices.Contains(want, r.Status):
		return wf.DecisionRecord{}, &pendingError{"review request " + r.ID + " is " + r.Status}
	}
	rec := wf.ReviewRecord{RequestID: r.ID, Kind: r.Kind, Role: r.Role, Status: r.Status, ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken}
	if r.Status == models.ReviewRequested {
		return wf.DecisionRecord{Review: &rec}, nil
	}
	s := d.Session
	if s == nil {
		return wf.DecisionRecord{}, &pendingError{"review request " + r.ID + " has no session"}
	}
	if err := sessionMayReview(r, *s); err != nil {
		return wf.DecisionRecord{}, err
	}
	if r.Status == models.ReviewSubmitted {
		if s.SubmittedAt == nil {
			return wf.DecisionRecord{}, &pendingError{"review session " + s.ID + " has no verdict"}
		}
		rec.Verdict, rec.ReturnTo, rec.Synopsis, rec.Notes = s.Verdict, s.ReturnTo, s.Synopsis, s.Notes
		rec.SubmittedAt = s.SubmittedAt.UTC()
		if s.FindingsJSON != "" {
			_ = json.Unmarshal([]byte(s.FindingsJSON), &rec.Findings)
		}
		if s.EvidenceJSON != "" {
			_ = json.Unmarshal([]byte(s.EvidenceJSON), &rec.Evidence)
		}
	}
	return wf.DecisionRecord{Review: &rec}, nil
}

// sessionMayReview refuses a session the review's rules forbid: a human
// review opened by anyone but an operator, or an agent key's review of
// what it requested itself (a self-review). Operators are trusted people.
func sessionMayReview(r models.ReviewRequest, s models.ReviewSession) error {
	operator := s.OpenedByRole == string(platform.RoleOperator)
	if r.Role == models.RoleHuman && !operator {
		return refuse("human review %s was not opened by an operator", r.ID)
	}
	if s.OpenedByCredential == "" || (!operator && s.OpenedByCredential == r.ProducerCredential) {
		return refuse("review %s was not opened by a credential other than the producer's", r.ID)
	}
	return nil
}

func (a *DecisionActivities) proposal(ctx context.Context, q wf.DecisionQuery) (wf.DecisionRecord, error) {
	p, err := models.ProposalByID(ctx, a.DB, q.RecordID)
	if errors.Is(err, models.ErrNoRecord) {
		return wf.DecisionRecord{}, &pendingError{"no consolidation proposal " + q.RecordID}
	}
	if err != nil {
		return wf.DecisionRecord{}, err
	}
	if q.TargetType != wf.TargetReflection || p.ProjectID != q.ProjectID || p.ReflectionID != q.TargetID {
		return wf.DecisionRecord{}, refuse("proposal %s belongs to another reflection", p.ID)
	}
	return wf.DecisionRecord{Proposal: &wf.ProposalRef{ProposalID: p.ID, Revision: p.Revision, BaseSHA: p.BaseSHA, ProposalSHA: p.ProposalSHA}}, nil
}

func (a *DecisionActivities) dependency(ctx context.Context, q wf.DecisionQuery) (wf.DecisionRecord, error) {
	e, err := models.ExperimentByID(ctx, a.DB, q.RecordID)
	if errors.Is(err, models.ErrNoRecord) {
		return wf.DecisionRecord{}, refuse("no experiment %s", q.RecordID)
	}
	if err != nil {
		return wf.DecisionRecord{}, err
	}
	if e.ProjectID != q.ProjectID {
		return wf.DecisionRecord{}, refuse("experiment %s belongs to another project", e.ID)
	}
	if slices.Contains(models.OpenStatuses, e.Status) {
		return wf.DecisionRecord{}, &pendingError{"experiment " + e.ID + " is still " + e.Status}
	}
	return wf.DecisionRecord{Dependency: &wf.DependencySettled{ExperimentID: e.ID, Status: gates.Status(e.Status)}}, nil
}

// pendingError: the record may still be committing.
type pendingError struct{ reason string }

func (e *pendingError) Error() string { return e.reason }

func refuse(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), wf.ErrTypeDecisionRefused, nil)
}

func isRefusal(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == wf.ErrTypeDecisionRefused
}
