package research

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// signalGate is a workflow's side of its gate-opening signals and of
// NoticeUpdate: the target their records name, the reviews they feed and
// how the verified record of each other signal applies. A run that
// verifies signals (see decision.go) applies each one's database record;
// a run recorded before that change applies the signal's own values, so
// its history replays.
type signalGate struct {
	targetType, projectID, targetID string
	rejected                        *[]RejectedSignal
	reviews                         reviewSink
	// records apply the verified record of each signal besides the
	// reviews: artifact landed, and dependency settled or proposal
	// submitted.
	records map[string]gatedRecord
}

// reviewSink is a workflow that takes reviews (its core).
type reviewSink interface {
	reviewRequested(ReviewRequested)
	reviewStarted(ReviewStarted)
	reviewVerdict(time.Time, ReviewVerdict)
	reviewRecorded(time.Time, ReviewRecord, recordRules)
}

// gatedRecord applies the verified record of one signal; applied, when
// set, reports a notice's record as applied already, so a repeat changes
// nothing.
type gatedRecord struct {
	apply   func(workflow.Context, DecisionRecord)
	applied func(DecisionRecord) bool
}

// query names the record behind a signal to the target.
func (g *signalGate) query(signal, recordID string) DecisionQuery {
	return DecisionQuery{Signal: signal, TargetType: g.targetType, ProjectID: g.projectID, TargetID: g.targetID, RecordID: recordID}
}

// apply applies the verified record of a signal.
func (g *signalGate) apply(ctx workflow.Context, signal string, rec DecisionRecord) {
	if r, ok := g.records[signal]; ok {
		r.apply(ctx, rec)
	} else if rec.Review != nil {
		g.reviews.reviewRecorded(workflow.Now(ctx), *rec.Review, recordRulesOf(ctx))
	}
}

// applyNotice applies the verified record of a notice once.
func (g *signalGate) applyNotice(ctx workflow.Context, signal string, rec DecisionRecord) {
	if r := g.records[signal]; r.applied != nil && r.applied(rec) {
		return
	}
	g.apply(ctx, signal, rec)
}

// takes reports whether signal is one of the target's notices.
func (g *signalGate) takes(signal string) bool {
	switch signal {
	case ReviewRequestedSignal, ReviewStartedSignal, ReviewVerdictSignal:
		return true
	}
	_, ok := g.records[signal]
	return ok
}

// receiveGated reads signal name: verified, the record id(payload) names
// applies; unverified, the payload itself.
func receiveGated[T any](ctx workflow.Context, g *signalGate, name string, id func(T) string, unverified func(workflow.Context, T)) {
	receiveIn(ctx, name, func(ctx workflow.Context, v T) {
		if !verifiesSignals(ctx) {
			unverified(ctx, v)
			return
		}
		if rec, ok := verifyDecision(ctx, g.query(name, id(v)), g.rejected); ok {
			g.apply(ctx, name, rec)
		}
	})
}

// receiveReviews reads the three review signals.
func (g *signalGate) receiveReviews(ctx workflow.Context) {
	receiveGated(ctx, g, ReviewRequestedSignal, func(r ReviewRequested) string { return r.RequestID },
		func(_ workflow.Context, r ReviewRequested) { g.reviews.reviewRequested(r) })
	receiveGated(ctx, g, ReviewStartedSignal, func(r ReviewStarted) string { return r.RequestID },
		func(_ workflow.Context, r ReviewStarted) { g.reviews.reviewStarted(r) })
	receiveGated(ctx, g, ReviewVerdictSignal, func(v ReviewVerdict) string { return v.RequestID },
		func(ctx workflow.Context, v ReviewVerdict) { g.reviews.reviewVerdict(workflow.Now(ctx), v) })
}
