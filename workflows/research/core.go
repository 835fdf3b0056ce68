package research

import (
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// core is what an experiment and a reflection wave share: it points at
// the fields both states have, holds the dirty flag and changes those
// fields the same way for both (moves here, reviews in core_reviews.go).
// A domain wires it to its state and fills in what differs.
type core[S gateengine.Status] struct {
	status          *S
	attempt         *int
	revision        *int
	history         *[]TransitionRecord
	revisionContext **RevisionContext
	// artifacts and reviews are the state's maps, made once at start.
	artifacts map[string]ArtifactRef
	reviews   map[string]ReviewState
	dirty     bool
	// pendingAt is the review kind pending at a status ("" if none).
	pendingAt func(S) string
	// opens, when set, must hold for a review request to open.
	opens func() bool
	// route sends a verdict; retire, when set, retires what a route
	// asking for a new revision rejects (the wave's proposal).
	route  func(ReviewVerdict) (gateengine.Route[S], error)
	retire func()
	// gate reads the gate-opening signals and notices.
	gate signalGate
}

// changed counts a change of the state and marks it to be mirrored.
func (c *core[S]) changed() {
	*c.revision++
	c.dirty = true
}

// pending is the review kind pending now ("" if none).
func (c *core[S]) pending() string { return c.pendingAt(*c.status) }

// landed stores an artifact of the current attempt at key; once the
// target is terminal, nothing lands, and an upload older than the one
// at key never replaces it (see uploadedBefore).
func (c *core[S]) landed(ctx workflow.Context, key string, a ArtifactRef) {
	if (*c.status).Terminal() || a.Attempt != *c.attempt || uploadedBefore(ctx, a, c.artifacts[key]) {
		return
	}
	c.artifacts[key] = a
	c.changed()
}

// move changes status, records the sealed artifacts and resets the review
// of a review status being entered.
func (c *core[S]) move(now time.Time, name string, to S, newAttempt bool) {
	*c.history = append(*c.history, moveRecord(name, gates.Status(*c.status), gates.Status(to), *c.attempt, c.artifacts, now))
	if newAttempt {
		*c.attempt++
	}
	*c.status = to
	if kind := c.pendingAt(to); kind != "" {
		c.reviews[kind] = ReviewState{Status: ReviewStatusNone}
	}
	c.changed()
}

// moveRecord is the history entry of a transition from one status to
// another, sealing the artifacts of the current attempt.
func moveRecord(name string, from, to gates.Status, attempt int, artifacts map[string]ArtifactRef, at time.Time) TransitionRecord {
	var sealed []string
	for _, a := range artifacts {
		if a.Attempt == attempt {
			sealed = append(sealed, a.ArtifactID)
		}
	}
	slices.Sort(sealed)
	return TransitionRecord{Transition: name, From: from, To: to, Attempt: attempt, Sealed: sealed, At: at}
}
