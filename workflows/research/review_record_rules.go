package research

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// reviewRecordChange versions how a review record applies (recordRules);
// runs recorded before it apply records by the workflow's own clock, so
// their histories replay.
const reviewRecordChange = "review-record-database-clock"

// recordRules are the rules a run applies review records by.
type recordRules struct {
	// databaseClock: a verdict counts when the database recorded it
	// before its request expired, whatever the workflow's clock says when
	// the record arrives; a started request of a second role cannot
	// displace the kind's open review; and a review of an older snapshot
	// holds nothing (heldByOtherRole).
	databaseClock bool
}

// recordRulesOf reads the rules of this run.
func recordRulesOf(ctx workflow.Context) recordRules {
	return recordRules{databaseClock: workflow.GetVersion(ctx, reviewRecordChange, workflow.DefaultVersion, 1) >= 1}
}

// recordedVerdict applies a verdict the database recorded at
// r.SubmittedAt. The api accepted it only before the request expired, so
// it answered the caller "recorded"; the workflow honours that answer
// even when its expiry timer fired while the record was on its way,
// reopening the request it expired. A verdict recorded late, or of a
// request the kind no longer waits on, changes nothing.
func (c *core[S]) recordedVerdict(now time.Time, r ReviewRecord) {
	if !r.SubmittedAt.Before(r.ExpiresAt) && !r.ExpiresAt.IsZero() {
		return
	}
	cur := c.reviews[r.Kind]
	switch {
	case cur.RequestID == r.RequestID && (cur.Status == ReviewStatusRequested || cur.Status == ReviewStatusStarted):
	case cur.Status == ReviewStatusNone && cur.ExpiredRequestID == r.RequestID:
		c.reviews[r.Kind] = ReviewState{Status: ReviewStatusStarted, RequestID: r.RequestID, Role: r.Role,
			ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken}
	default:
		return
	}
	c.reviewVerdict(now, verdictOf(r))
}
