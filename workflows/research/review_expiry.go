package research

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// reviewExpiryChange versions the review expiry timer: a run recorded
// before it waits on changes only, so its history replays.
const reviewExpiryChange = "review-expiry-timer"

// expiresReviews reports whether this run expires review requests on a
// timer; asked once, when the run starts.
func expiresReviews(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, reviewExpiryChange, workflow.DefaultVersion, 1) >= 1
}

// awaitChangeOrExpiry waits until changed() holds or, when expiring, the
// earliest open review request expires.
func awaitChangeOrExpiry(ctx workflow.Context, expiring bool, reviews map[string]ReviewState, changed func() bool) error {
	at, ok := earliestExpiry(reviews)
	if !expiring || !ok {
		return workflow.Await(ctx, changed)
	}
	if d := at.Sub(workflow.Now(ctx)); d > 0 {
		_, err := workflow.AwaitWithTimeout(ctx, d, changed)
		return err
	}
	return nil
}

// earliestExpiry is the soonest expiry of an open (requested or started) review.
func earliestExpiry(reviews map[string]ReviewState) (time.Time, bool) {
	var at time.Time
	for _, r := range reviews {
		if open(r) && (at.IsZero() || r.ExpiresAt.Before(at)) {
			at = r.ExpiresAt
		}
	}
	return at, !at.IsZero()
}

func open(r ReviewState) bool {
	return (r.Status == ReviewStatusRequested || r.Status == ReviewStatusStarted) && !r.ExpiresAt.IsZero()
}

// expireReviews closes every open review whose request expired by now, so
// the gate asks for a new request instead of waiting for a reviewer who
// will never answer; it reports whether any expired.
func expireReviews(now time.Time, reviews map[string]ReviewState) bool {
	expired := false
	for kind, r := range reviews {
		if open(r) && !now.Before(r.ExpiresAt) {
			reviews[kind] = ReviewState{Status: ReviewStatusNone, ExpiredRequestID: r.RequestID}
			expired = true
		}
	}
	return expired
}

// heldByOtherRole: the kind's open review is another role's, unexpired.
// One review of a kind is open at a time, so a request of a second role
// (an agent's own reviewer beside a human review) cannot displace it and
// leave the first one's verdict recorded but ignored. Under
// rules.databaseClock a review of an older snapshot than r's holds
// nothing: its pass could never count, and the api superseded it.
func heldByOtherRole(cur ReviewState, r ReviewRecord, now time.Time, rules recordRules) bool {
	if rules.databaseClock && cur.SnapshotToken != "" && r.SnapshotToken != "" && cur.SnapshotToken != r.SnapshotToken {
		return false
	}
	return (cur.Status == ReviewStatusRequested || cur.Status == ReviewStatusStarted) && cur.Role != r.Role &&
		(cur.ExpiresAt.IsZero() || now.Before(cur.ExpiresAt))
}
