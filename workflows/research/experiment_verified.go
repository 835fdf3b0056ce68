package research

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// receiveVerified reads the experiment's gate-opening signals. A run that
// verifies signals (see decision.go) applies each one's database record;
// a run recorded before that change applies the signal's own values, so
// its history replays.
func (w *experiment) receiveVerified(ctx workflow.Context) {
	query := w.decisionQuery
	receiveIn(ctx, ArtifactLandedSignal, func(ctx workflow.Context, a ArtifactRef) {
		if !verifiesSignals(ctx) {
			w.artifactLanded(a)
			return
		}
		if rec, ok := verifyDecision(ctx, query(ArtifactLandedSignal, a.ArtifactID), &w.state.RejectedSignals); ok {
			w.applyVerified(ctx, ArtifactLandedSignal, rec)
		}
	})
	receiveVerifiedReviews(ctx, w, query, &w.state.RejectedSignals)
	receiveIn(ctx, DependencySettledSignal, func(ctx workflow.Context, d DependencySettled) {
		if !verifiesSignals(ctx) {
			w.dependencySettled(d)
			return
		}
		if rec, ok := verifyDecision(ctx, query(DependencySettledSignal, d.ExperimentID), &w.state.RejectedSignals); ok {
			w.applyVerified(ctx, DependencySettledSignal, rec)
		}
	})
}

// notices takes NoticeUpdate: the verified records of the same signals,
// each applied once.
func (w *experiment) notices() noticeTaker[ExperimentState] {
	return noticeTaker[ExperimentState]{
		signals: []string{ArtifactLandedSignal, ReviewRequestedSignal, ReviewStartedSignal, ReviewVerdictSignal, DependencySettledSignal},
		query:   w.decisionQuery, rejected: &w.state.RejectedSignals, state: func() ExperimentState { return w.state },
		apply: func(ctx workflow.Context, signal string, rec DecisionRecord) {
			if a := rec.Artifact; signal == ArtifactLandedSignal && a != nil && w.state.Artifacts[a.Role].ArtifactID == a.ArtifactID {
				return
			}
			if d := rec.Dependency; signal == DependencySettledSignal && d != nil && w.state.Dependencies[d.ExperimentID] == d.Status {
				return
			}
			w.applyVerified(ctx, signal, rec)
		},
	}
}

// applyVerified applies the verified record of a gate signal.
func (w *experiment) applyVerified(ctx workflow.Context, signal string, rec DecisionRecord) {
	switch {
	case signal == ArtifactLandedSignal:
		if rec.Artifact != nil {
			w.artifactLanded(rec.Artifact.ArtifactRef)
		}
	case signal == DependencySettledSignal:
		if rec.Dependency != nil {
			w.dependencySettled(*rec.Dependency)
		}
	case rec.Review != nil:
		w.reviewRecorded(workflow.Now(ctx), *rec.Review)
	}
}

// decisionQuery names the record behind a signal to this experiment.
func (w *experiment) decisionQuery(signal, recordID string) DecisionQuery {
	return DecisionQuery{Signal: signal, TargetType: TargetExperiment, ProjectID: w.state.ProjectID,
		TargetID: w.state.ExperimentID, RecordID: recordID}
}

// reviewRecorded applies a review request as the database holds it: a
// live request becomes the kind's current review, a started one its
// session, a submitted one its verdict, once.
func (w *experiment) reviewRecorded(now time.Time, r ReviewRecord) {
	cur := w.state.Reviews[r.Kind]
	if reviewKind(w.state.Status) != r.Kind {
		return
	}
	if !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt) {
		return // an expired request opens nothing; the producer requests anew
	}
	requested := ReviewRequested{Kind: r.Kind, RequestID: r.RequestID, Role: r.Role, ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken}
	switch r.Status {
	case RecordRequested:
		if cur.RequestID != r.RequestID && !heldByOtherRole(cur, r, now) {
			w.reviewRequested(requested)
		}
	case RecordStarted:
		if cur.RequestID != r.RequestID {
			w.reviewRequested(requested)
		}
		w.reviewStarted(ReviewStarted{Kind: r.Kind, RequestID: r.RequestID})
	case RecordSubmitted:
		if cur.RequestID == r.RequestID && (cur.Status == ReviewStatusRequested || cur.Status == ReviewStatusStarted) {
			w.reviewVerdict(now, verdictOf(r))
		}
	}
}
