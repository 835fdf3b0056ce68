package research

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// reviewSink is a workflow that takes reviews: an experiment or a
// reflection wave.
type reviewSink interface {
	reviewRequested(ReviewRequested)
	reviewStarted(ReviewStarted)
	reviewVerdict(time.Time, ReviewVerdict)
	reviewRecorded(time.Time, ReviewRecord)
}

// receiveVerifiedReviews reads the three review signals for w. A run that
// verifies signals applies each one's database record (found by query)
// and keeps the ones no record backs in rejected; a run recorded before
// that change applies the signal's own values, so its history replays.
func receiveVerifiedReviews(ctx workflow.Context, w reviewSink, query func(signal, recordID string) DecisionQuery, rejected *[]RejectedSignal) {
	review := func(ctx workflow.Context, signal string, requestID string, unverified func()) {
		if !verifiesSignals(ctx) {
			unverified()
			return
		}
		if rec, ok := verifyDecision(ctx, query(signal, requestID), rejected); ok && rec.Review != nil {
			w.reviewRecorded(workflow.Now(ctx), *rec.Review)
		}
	}
	receiveIn(ctx, ReviewRequestedSignal, func(ctx workflow.Context, r ReviewRequested) {
		review(ctx, ReviewRequestedSignal, r.RequestID, func() { w.reviewRequested(r) })
	})
	receiveIn(ctx, ReviewStartedSignal, func(ctx workflow.Context, r ReviewStarted) {
		review(ctx, ReviewStartedSignal, r.RequestID, func() { w.reviewStarted(r) })
	})
	receiveIn(ctx, ReviewVerdictSignal, func(ctx workflow.Context, v ReviewVerdict) {
		review(ctx, ReviewVerdictSignal, v.RequestID, func() { w.reviewVerdict(workflow.Now(ctx), v) })
	})
}
