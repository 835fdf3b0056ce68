package research

import (
	"time"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// reviewRequested opens the pending kind's review for the request.
func (c *core[S]) reviewRequested(r ReviewRequested) {
	if c.pending() != r.Kind || (c.opens != nil && !c.opens()) {
		return
	}
	c.reviews[r.Kind] = ReviewState{Status: ReviewStatusRequested, RequestID: r.RequestID, Role: r.Role,
		ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken}
	c.changed()
}

// reviewStarted starts the current request's review.
func (c *core[S]) reviewStarted(r ReviewStarted) {
	cur := c.reviews[r.Kind]
	if c.pending() != r.Kind || cur.RequestID != r.RequestID || cur.Status != ReviewStatusRequested {
		return
	}
	cur.Status = ReviewStatusStarted
	c.reviews[r.Kind] = cur
	c.changed()
}

// reviewVerdict applies a verdict of the current request: a pass passes
// the review, a rejection moves the target where route sends it. The api
// checked the verdict with the same route before telling the workflow, so
// a misfit is ignored.
func (c *core[S]) reviewVerdict(now time.Time, v ReviewVerdict) {
	cur := c.reviews[v.Kind]
	if c.pending() != v.Kind || cur.RequestID != v.RequestID {
		return
	}
	route, err := c.route(v)
	if err != nil {
		return
	}
	if !route.Moves {
		cur.Status = ReviewStatusPassed
		c.reviews[v.Kind] = cur
		c.changed()
		return
	}
	from := gates.Status(*c.status)
	*c.revisionContext = &RevisionContext{From: from, Verdict: v.Verdict, ReturnTo: string(route.To),
		Synopsis: v.Synopsis, Notes: v.Notes, RequestID: v.RequestID, Findings: v.Findings, Evidence: v.Evidence}
	c.reviews[v.Kind] = ReviewState{Status: ReviewStatusNone}
	if route.NewRevision && c.retire != nil {
		c.retire()
	}
	*c.history = append(*c.history, TransitionRecord{Transition: "review_" + v.Verdict, From: from,
		To: gates.Status(route.To), Attempt: *c.attempt, At: now})
	if route.NewAttempt {
		*c.attempt++
	}
	*c.status = route.To
	c.changed()
}

// reviewRecorded applies a review request as the database holds it: a
// live request becomes the kind's current review, a started one its
// session, a submitted one its verdict, once. Under rules.databaseClock
// a verdict is judged by when the database recorded it (recordedVerdict)
// and a started request of a second role cannot displace an open one.
func (c *core[S]) reviewRecorded(now time.Time, r ReviewRecord, rules recordRules) {
	if c.pending() != r.Kind {
		return
	}
	if rules.databaseClock && r.Status == RecordSubmitted && !r.SubmittedAt.IsZero() {
		c.recordedVerdict(now, r)
		return
	}
	if !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt) {
		return // an expired request opens nothing; the producer requests anew
	}
	cur := c.reviews[r.Kind]
	requested := ReviewRequested{Kind: r.Kind, RequestID: r.RequestID, Role: r.Role, ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken}
	switch r.Status {
	case RecordRequested:
		if cur.RequestID != r.RequestID && !heldByOtherRole(cur, r, now, rules) {
			c.reviewRequested(requested)
		}
	case RecordStarted:
		if cur.RequestID != r.RequestID {
			if rules.databaseClock && heldByOtherRole(cur, r, now, rules) {
				return
			}
			c.reviewRequested(requested)
		}
		c.reviewStarted(ReviewStarted{Kind: r.Kind, RequestID: r.RequestID})
	case RecordSubmitted:
		if cur.RequestID == r.RequestID && (cur.Status == ReviewStatusRequested || cur.Status == ReviewStatusStarted) {
			c.reviewVerdict(now, verdictOf(r))
		}
	}
}
