package research

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// receiveVerified reads the wave's gate-opening signals, applying each
// one's database record once verified (see decision.go); a run recorded
// before that change applies the signal's own values.
func (w *reflection) receiveVerified(ctx workflow.Context) {
	query := w.decisionQuery
	receiveIn(ctx, ArtifactLandedSignal, func(ctx workflow.Context, a ReflectionArtifact) {
		if !verifiesSignals(ctx) {
			w.artifactLanded(a)
			return
		}
		if rec, ok := verifyDecision(ctx, query(ArtifactLandedSignal, a.ArtifactID), &w.state.RejectedSignals); ok {
			w.applyVerified(ctx, ArtifactLandedSignal, rec)
		}
	})
	receiveVerifiedReviews(ctx, w, query, &w.state.RejectedSignals)
	receiveIn(ctx, ProposalSubmittedSignal, func(ctx workflow.Context, p ProposalRef) {
		if !verifiesSignals(ctx) {
			w.proposalSubmitted(p)
			return
		}
		if rec, ok := verifyDecision(ctx, query(ProposalSubmittedSignal, p.ProposalID), &w.state.RejectedSignals); ok {
			w.applyVerified(ctx, ProposalSubmittedSignal, rec)
		}
	})
}

// notices takes NoticeUpdate: the verified records of the same signals,
// each applied once.
func (w *reflection) notices() noticeTaker[ReflectionState] {
	return noticeTaker[ReflectionState]{
		signals: []string{ArtifactLandedSignal, ReviewRequestedSignal, ReviewStartedSignal, ReviewVerdictSignal, ProposalSubmittedSignal},
		query:   w.decisionQuery, rejected: &w.state.RejectedSignals, state: func() ReflectionState { return w.state },
		apply: func(ctx workflow.Context, signal string, rec DecisionRecord) {
			if a := rec.Artifact; signal == ArtifactLandedSignal && a != nil && w.state.Artifacts[ArtifactKey(a.Role, a.LensID)].ArtifactID == a.ArtifactID {
				return
			}
			w.applyVerified(ctx, signal, rec)
		},
	}
}

// applyVerified applies the verified record of a gate signal.
func (w *reflection) applyVerified(ctx workflow.Context, signal string, rec DecisionRecord) {
	switch {
	case signal == ArtifactLandedSignal:
		if rec.Artifact != nil {
			w.artifactLanded(*rec.Artifact)
		}
	case signal == ProposalSubmittedSignal:
		if rec.Proposal != nil {
			w.proposalSubmitted(*rec.Proposal)
		}
	case rec.Review != nil:
		w.reviewRecorded(workflow.Now(ctx), *rec.Review)
	}
}

// decisionQuery names the record behind a signal to this wave.
func (w *reflection) decisionQuery(signal, recordID string) DecisionQuery {
	return DecisionQuery{Signal: signal, TargetType: TargetReflection, ProjectID: w.state.ProjectID,
		TargetID: w.state.ReflectionID, RecordID: recordID}
}

// reviewRecorded applies a review request of the wave as the database
// holds it (see the experiment's).
func (w *reflection) reviewRecorded(now time.Time, r ReviewRecord) {
	if w.state.ReviewKind() != r.Kind {
		return
	}
	if !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt) {
		return // an expired request opens nothing; the producer requests anew
	}
	cur := w.state.Reviews[r.Kind]
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
