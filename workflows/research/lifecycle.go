package research

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/platform"
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// Error types carried by ApplicationErrors out of the transition update.
const (
	ErrTypeGateBlocked  = "gate_blocked"
	ErrTypeInvalidInput = "invalid_input"
)

// lifecycle is the skeleton an experiment and a reflection wave share:
// a state query, a validated transition update, the verified signals and
// one loop that mirrors every change until the target ends. A domain fills
// in its parts; the commands are the same as each domain's own loop had.
type lifecycle[S any, St gateengine.Status, R any] struct {
	kind  string
	state func() S
	core  *core[St]
	// check refuses a transition its gate does not allow; transition runs it.
	check      func(TransitionRequest) error
	transition func(workflow.Context, TransitionRequest) (R, error)
	// receive registers the domain's signal readers.
	receive func(workflow.Context)
	// due reports work besides mirroring (the wave's advance and
	// publish), which work runs.
	due  func() bool
	work func(workflow.Context) error
	// decision is the target's gate; record, given it, is what
	// recordActivity mirrors into the database.
	decision       func() gateengine.Decision
	record         func(gateengine.Decision) any
	recordActivity string
	// mirrored is the revision the last mirror stored (answerMirrored).
	mirrored int
	// finalActivity stores the state the target ended with.
	finalActivity string
}

// setup registers the query, the transition update and the signal readers.
func (l *lifecycle[S, St, R]) setup(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, StateQuery, func() (S, error) { return l.state(), nil }); err != nil {
		return err
	}
	transition := func(ctx workflow.Context, req TransitionRequest) (R, error) {
		r, err := l.transition(ctx, req)
		if err == nil {
			err = l.answerMirrored(ctx)
		}
		return r, err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, TransitionUpdate, transition,
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, req TransitionRequest) error { return l.check(req) }}); err != nil {
		return err
	}
	l.receive(ctx)
	if err := l.registerNotices(ctx); err != nil {
		return err
	}
	return workflow.UpsertTypedSearchAttributes(ctx, platform.KindKey.ValueSet(l.kind), platform.ProjectKey.ValueSet(l.core.gate.projectID))
}

// run mirrors every change into the database, runs the domain's due work
// and, once the target is terminal and mirrored, stores its final state.
func (l *lifecycle[S, St, R]) run(ctx workflow.Context) error {
	c := l.core
	c.dirty = true
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	expiring := expiresReviews(ctx)
	for {
		if err := awaitChangeOrExpiry(ctx, expiring, c.reviews, func() bool { return c.dirty || l.due() }); err != nil {
			return err
		}
		if expiring && expireReviews(workflow.Now(ctx), c.reviews) {
			c.changed()
		}
		if l.due() {
			if err := l.work(ctx); err != nil {
				return err
			}
		}
		if c.dirty {
			c.dirty = false
			rev := *c.revision
			if err := l.mirror(ctx, actx); err != nil {
				return err
			}
			l.mirrored = max(l.mirrored, rev)
		}
		if (*c.status).Terminal() && !c.dirty {
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return err
			}
			return storeFinal(ctx, actx, l.finalActivity, l.state())
		}
	}
}

// answerMirroredVersion marks the change that answers a transition or a
// notice only once the change is recorded in the database, so a caller
// reads its own write from every list and database-backed read; histories
// recorded before it answered at once.
const answerMirroredVersion = "research-answer-after-mirror"

// answerMirrored waits, in an update handler, until the run loop has
// mirrored the state as it is now.
func (l *lifecycle[S, St, R]) answerMirrored(ctx workflow.Context) error {
	if workflow.GetVersion(ctx, answerMirroredVersion, workflow.DefaultVersion, 1) != 1 {
		return nil
	}
	rev := *l.core.revision
	return workflow.Await(ctx, func() bool { return l.mirrored >= rev })
}

// mirror sets the gate search attribute and records the target in the
// database.
func (l *lifecycle[S, St, R]) mirror(ctx, actx workflow.Context) error {
	d := l.decision()
	if err := workflow.UpsertTypedSearchAttributes(ctx, platform.GateKey.ValueSet(d.Gate)); err != nil {
		return err
	}
	return workflow.ExecuteActivity(actx, l.recordActivity, l.record(d)).Get(ctx, nil)
}

// refusal turns a gate check's error into the validator's typed refusal
// (gate_blocked with the blocked details, or invalid_input); nil stays nil.
func refusal(err error) error {
	var be *gateengine.BlockedError
	if errors.As(err, &be) {
		return temporal.NewApplicationErrorWithOptions(be.Error(), ErrTypeGateBlocked,
			temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{*be}})
	}
	if err != nil {
		return temporal.NewApplicationErrorWithOptions(err.Error(), ErrTypeInvalidInput, temporal.ApplicationErrorOptions{NonRetryable: true})
	}
	return nil
}
