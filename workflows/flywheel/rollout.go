package flywheel

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/platform"
)

// Gates shown in the GatehouseGate search attribute.
const (
	gateQueued = "queued"
	gateLeased = "leased"
	gateDone   = "done"
)

// rollout is the workflow's state; handlers are wired in setup, the loop
// is run.
type rollout struct {
	in      RolloutInput
	st      Status
	leased  bool
	final   *FinalizeInput
	timerAt time.Time
	timer   workflow.Future
	cancelT workflow.CancelFunc
}

// Rollout runs one rollout from enqueue to a terminal state: it waits for
// lease grants and heartbeats (signals), revokes a lapsed lease when its
// timer fires (re-queue, or exclusion capacity when attempts ran out),
// ends at the deadline (deadline_exceeded), on an accepted output
// (completed) or on an operator's cancel (cancelled), and continues as new
// before a run collects DefaultMaxSignalsPerRun signals.
func Rollout(ctx workflow.Context, in RolloutInput) (Status, error) {
	r := &rollout{in: in}
	if err := r.setup(ctx); err != nil {
		return Status{}, err
	}
	return r.run(ctx)
}

func (r *rollout) setup(ctx workflow.Context) error {
	if c := r.in.Carry; c != nil {
		r.leased, r.st.Epoch, r.st.LeaseExpiresAt, r.st.Heartbeats, r.st.Runs = c.Leased, c.Epoch, c.LeaseExpiresAt, c.Heartbeats, c.Runs
	}
	r.st.Gate = gateQueued
	if r.leased {
		r.st.Gate = gateLeased
	}
	if err := workflow.SetQueryHandler(ctx, StatusQuery, func() (Status, error) { return r.st, nil }); err != nil {
		return err
	}
	if r.in.Carry == nil && !r.in.QuietVisibility {
		return workflow.UpsertTypedSearchAttributes(ctx, platform.KindKey.ValueSet("rollout"), platform.GateKey.ValueSet(r.st.Gate))
	}
	return nil
}

func (r *rollout) maxSignals() int {
	if r.in.MaxSignalsPerRun > 0 && r.in.MaxSignalsPerRun < DefaultMaxSignalsPerRun*5 {
		return r.in.MaxSignalsPerRun
	}
	return DefaultMaxSignalsPerRun
}

func (r *rollout) run(ctx workflow.Context) (Status, error) {
	leaseCh := workflow.GetSignalChannel(ctx, LeaseSignal)
	outputCh := workflow.GetSignalChannel(ctx, OutputSignal)
	cancelCh := workflow.GetSignalChannel(ctx, CancelSignal)
	for r.final == nil {
		if r.st.SignalsThisRun >= r.maxSignals() || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			r.drain(ctx, leaseCh, outputCh, cancelCh)
			if r.final == nil {
				return Status{}, r.continueAsNew(ctx)
			}
			break
		}
		now := workflow.Now(ctx)
		if !now.Before(r.in.DeadlineAt) {
			r.finish(StatusExcluded, ExclusionDeadline, "")
			break
		}
		if r.leased && !now.Before(r.st.LeaseExpiresAt) {
			if err := r.expire(ctx); err != nil {
				return Status{}, err
			}
			continue
		}
		r.armTimer(ctx, now)
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(r.timer, func(workflow.Future) { r.timer, r.timerAt = nil, time.Time{} })
		sel.AddReceive(leaseCh, func(c workflow.ReceiveChannel, _ bool) { r.onLease(ctx, c) })
		sel.AddReceive(outputCh, func(c workflow.ReceiveChannel, _ bool) { r.onOutput(c) })
		sel.AddReceive(cancelCh, func(c workflow.ReceiveChannel, _ bool) { r.onCancel(c) })
		sel.Select(ctx)
	}
	if r.cancelT != nil {
		r.cancelT()
	}
	return r.finalize(ctx)
}

// armTimer keeps one timer for the next thing due (lease expiry or
// deadline). A heartbeat moves the expiry later, which needs no new timer:
// the old one fires, the loop sees the later expiry and re-arms. Only an
// earlier wake (a new lease) replaces the timer, so a heartbeat costs a
// signal and a workflow task, not a timer start and cancel.
func (r *rollout) armTimer(ctx workflow.Context, now time.Time) {
	wake := r.in.DeadlineAt
	if r.leased && r.st.LeaseExpiresAt.Before(wake) {
		wake = r.st.LeaseExpiresAt
	}
	if r.timer != nil && !wake.Before(r.timerAt) {
		return
	}
	if r.cancelT != nil {
		r.cancelT()
	}
	tctx, cancel := workflow.WithCancel(ctx)
	r.timer, r.timerAt, r.cancelT = workflow.NewTimer(tctx, wake.Sub(now)), wake, cancel
}

func (r *rollout) onLease(ctx workflow.Context, c workflow.ReceiveChannel) {
	var u LeaseUpdate
	c.Receive(ctx, &u)
	r.st.SignalsThisRun++
	r.applyLease(ctx, u)
}

func (r *rollout) applyLease(ctx workflow.Context, u LeaseUpdate) {
	switch {
	case u.Epoch > r.st.Epoch: // a new lease (the database fenced the old one)
		r.leased, r.st.Epoch, r.st.LeaseExpiresAt = true, u.Epoch, u.ExpiresAt
		r.setGate(ctx, gateLeased)
	case u.Epoch == r.st.Epoch && r.leased: // a heartbeat
		r.st.Heartbeats++
		if u.ExpiresAt.After(r.st.LeaseExpiresAt) {
			r.st.LeaseExpiresAt = u.ExpiresAt
		}
	}
}

func (r *rollout) onOutput(c workflow.ReceiveChannel) {
	var n OutputNotice
	c.ReceiveAsync(&n)
	r.st.SignalsThisRun++
	if n.Epoch >= r.st.Epoch {
		// The output's lease may be one the workflow was never told of:
		// heartbeats defer a grant's notice, and an output drops it.
		r.st.Epoch = n.Epoch
		r.finish(StatusCompleted, "", "")
	}
}

func (r *rollout) onCancel(c workflow.ReceiveChannel) {
	var req CancelRequest
	c.ReceiveAsync(&req)
	r.st.SignalsThisRun++
	r.finish(StatusExcluded, ExclusionCancelled, req.Detail)
}

func (r *rollout) finish(status, reason, detail string) {
	if r.final == nil {
		r.final = &FinalizeInput{RolloutID: r.in.RolloutID, Status: status, Reason: reason, Detail: detail}
	}
}

// expire asks the database, the authority for whether a heartbeat landed,
// to revoke the current lease.
func (r *rollout) expire(ctx workflow.Context) error {
	var res ExpireLeaseResult
	err := workflow.ExecuteActivity(activityCtx(ctx), ExpireLeaseActivity,
		ExpireLeaseInput{RolloutID: r.in.RolloutID, Epoch: r.st.Epoch, Heartbeats: r.st.Heartbeats}).Get(ctx, &res)
	if err != nil {
		return err
	}
	switch res.Outcome {
	case ExpiryExtended:
		r.st.LeaseExpiresAt = res.ExpiresAt
	case ExpiryOutput:
		r.finish(StatusCompleted, "", "")
	case ExpiryExhausted:
		r.leased = false
		r.finish(StatusExcluded, ExclusionCapacity, "lease expired on the last allowed attempt")
	default: // requeued, or stale (a newer lease's signal is on its way)
		r.leased = false
		r.setGate(ctx, gateQueued)
	}
	return nil
}

func (r *rollout) finalize(ctx workflow.Context) (Status, error) {
	r.final.Heartbeats = r.st.Heartbeats
	var res FinalizeResult
	var run workflow.Future
	if r.in.FinalizeLocally {
		run = workflow.ExecuteLocalActivity(localActivityCtx(ctx), FinalizeActivity, *r.final)
	} else {
		run = workflow.ExecuteActivity(activityCtx(ctx), FinalizeActivity, *r.final)
	}
	if err := run.Get(ctx, &res); err != nil {
		return Status{}, err
	}
	r.leased = false
	r.st.Exclusion = res.Reason
	r.setGate(ctx, gateDone)
	return r.st, nil
}

// drain applies every signal already delivered, so continue-as-new loses
// none.
func (r *rollout) drain(ctx workflow.Context, leaseCh, outputCh, cancelCh workflow.ReceiveChannel) {
	for {
		var u LeaseUpdate
		if !leaseCh.ReceiveAsync(&u) {
			break
		}
		r.applyLease(ctx, u)
	}
	for outputCh.Len() > 0 {
		r.onOutput(outputCh)
	}
	for cancelCh.Len() > 0 {
		r.onCancel(cancelCh)
	}
}

func (r *rollout) continueAsNew(ctx workflow.Context) error {
	in := r.in
	in.Carry = &Carry{Leased: r.leased, Epoch: r.st.Epoch, LeaseExpiresAt: r.st.LeaseExpiresAt, Heartbeats: r.st.Heartbeats, Runs: r.st.Runs + 1}
	return workflow.NewContinueAsNewError(ctx, RolloutWorkflow, in)
}

func (r *rollout) setGate(ctx workflow.Context, gate string) {
	if r.st.Gate == gate {
		return
	}
	r.st.Gate = gate
	if r.in.QuietVisibility {
		return // the status query shows the gate; visibility does not
	}
	// Visibility only; a failure here must not fail the rollout.
	_ = workflow.UpsertTypedSearchAttributes(ctx, platform.GateKey.ValueSet(gate))
}

// Every activity of a rollout, regular or local, gets the same attempt
// timeout and backoff, and is retried until it succeeds.
const activityAttempt = 15 * time.Second

// activityRetry is the backoff of a rollout's activities (a fresh policy
// each time: the options keep the pointer).
func activityRetry() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second}
}

func activityCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: activityAttempt, RetryPolicy: activityRetry()})
}

// localActivityCtx is activityCtx for a local activity.
func localActivityCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: activityAttempt, RetryPolicy: activityRetry()})
}
