package research

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// sandboxRun is one sandbox's lifecycle: provision, wait for the time
// limit (moved by extend) or a release, tear down.
type sandboxRun struct {
	in    SandboxInput
	state SandboxState
	// pinned: this run keeps the host queue provisioning answers and runs
	// the machine's later activities there (SandboxHostQueueChange).
	pinned bool
	// releases carries SandboxReleaseUpdate to the wait; provisioned and
	// ended, once recorded, answer the Updates waiting for them.
	releases workflow.Channel
	// extended wakes the wait after SandboxExtendUpdate moved the limit.
	extended           workflow.Channel
	provisioned, ended bool
}

// Sandbox is the workflow behind sandbox/<uid>. Provisioning and teardown
// are retried activities; the time limit is a durable timer that
// SandboxExtendUpdate (or SandboxExtendSignal) moves, never past the
// input's MaxLifetime; expiry or SandboxReleaseSignal tears down. After
// SandboxContinueAfter signals, or
// when Temporal suggests it, a run continues as new with its state
// (SandboxInput.Resume), so no number of extends grows one history
// without bound.
// A teardown that keeps failing leaves the sandbox cleanup_pending while
// it is retried without limit. A local sandbox lives on the worker host
// that provisioned it: its re-provisioning and teardown run on that
// host's task queue, and a host that never polls again ends the sandbox
// cleanup_pending instead of holding teardown forever.
func Sandbox(ctx workflow.Context, in SandboxInput) (SandboxState, error) {
	w := &sandboxRun{in: in, state: SandboxState{UID: in.UID, Status: SandboxProvisioning}}
	if in.Resume != nil {
		w.state = *in.Resume
	}
	if err := w.setup(ctx); err != nil {
		return w.state, err
	}
	return w.run(ctx)
}

func (w *sandboxRun) setup(ctx workflow.Context) error {
	if w.in.Resume == nil {
		limit := w.in.TimeLimit
		if limit <= 0 {
			limit = SandboxDefaultTimeLimit
		}
		now := workflow.Now(ctx)
		w.state.ExpiresAt = now.Add(limit)
		if w.in.MaxLifetime > 0 {
			w.state.LifetimeEndsAt = now.Add(w.in.MaxLifetime)
			w.state.ExpiresAt = earliest(w.state.ExpiresAt, w.state.LifetimeEndsAt)
		}
	}
	w.provisioned = w.in.Resume != nil
	if err := workflow.SetQueryHandler(ctx, SandboxStateQuery, func() (SandboxState, error) { return w.state, nil }); err != nil {
		return err
	}
	return w.setupUpdates(ctx)
}

func (w *sandboxRun) run(ctx workflow.Context) (SandboxState, error) {
	w.pinned = workflow.GetVersion(ctx, SandboxHostQueueChange, workflow.DefaultVersion, 1) >= 1
	if w.in.Resume != nil {
		return w.runUntilEnd(ctx)
	}
	if err := w.record(ctx); err != nil {
		return w.state, err
	}
	var ep SandboxEndpoint
	if err := workflow.ExecuteActivity(provisionOptions(ctx), ProvisionSandboxActivity, w.in).Get(ctx, &ep); err != nil {
		w.state.Status, w.state.EndReason, w.state.Error = SandboxFailed, SandboxEndFailed, err.Error()
		w.teardown(ctx) // a half-made machine must not outlive the workflow
		w.state.Status = SandboxFailed
		return w.state, w.finish(ctx, w.record(ctx))
	}
	w.state.Status, w.state.Endpoint = SandboxRunning, w.kept(ep)
	if err := w.record(ctx); err != nil {
		return w.state, err
	}
	w.provisioned = true
	return w.runUntilEnd(ctx)
}

// runUntilEnd waits for expiry or a release and tears down, or continues
// as new once this run has handled enough signals.
func (w *sandboxRun) runUntilEnd(ctx workflow.Context) (SandboxState, error) {
	reason, again := w.waitForExpiryOrRelease(ctx)
	if again {
		next := w.in
		state := w.state
		next.Resume, next.Port = &state, w.state.Endpoint.Port
		return w.state, workflow.NewContinueAsNewError(ctx, SandboxWorkflowName, next)
	}
	w.state.EndReason = reason
	if w.teardown(ctx) {
		w.state.Status = SandboxTerminated
	}
	return w.state, w.finish(ctx, w.record(ctx))
}

// earliest is the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// provisionOptions bound one provisioning: a few quick retries.
func provisionOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: 30 * time.Second, MaximumAttempts: 5},
	})
}

// reprovision brings the machine back up through the same idempotent
// activity, asking for the port it had; a new endpoint replaces the old.
// A failure leaves the state as it was: the sandbox still expires on time.
func (w *sandboxRun) reprovision(ctx workflow.Context) {
	in := w.in
	in.Port = w.state.Endpoint.Port
	var ep SandboxEndpoint
	if err := workflow.ExecuteActivity(w.onHost(provisionOptions(ctx), SandboxHostPickup), ProvisionSandboxActivity, in).Get(ctx, &ep); err != nil {
		workflow.GetLogger(ctx).Warn("sandbox re-provisioning failed", "uid", w.in.UID, "err", err)
		return
	}
	if ep = w.kept(ep); ep != w.state.Endpoint {
		w.state.Endpoint = ep
		w.state.Revision++
	}
}

// kept is the endpoint as this run keeps it: a run from before
// SandboxHostQueueChange drops the host queue, so it schedules as it did.
func (w *sandboxRun) kept(ep SandboxEndpoint) SandboxEndpoint {
	if !w.pinned {
		ep.HostQueue = ""
	}
	return ep
}

// onHost sends an activity that touches the machine to the host queue of
// the worker holding it, waiting at most pickup for that host to poll;
// without a host queue (not local, or an older run) ctx is unchanged.
func (w *sandboxRun) onHost(ctx workflow.Context, pickup time.Duration) workflow.Context {
	if w.state.Endpoint.HostQueue == "" {
		return ctx
	}
	return workflow.WithScheduleToStartTimeout(workflow.WithTaskQueue(ctx, w.state.Endpoint.HostQueue), pickup)
}

// ExtendBy is what one extend adds: the default for seconds ≤ 0, capped at
// SandboxMaxExtend.
func ExtendBy(seconds int) time.Duration {
	if seconds <= 0 {
		return SandboxDefaultExtend
	}
	return min(time.Duration(seconds)*time.Second, SandboxMaxExtend)
}

// teardown destroys the machine: a few quick attempts, then, if they all
// fail, cleanup_pending and retries without limit. It answers whether the
// machine is gone: false only when a destroy on a host queue finally
// fails (the host holding a local sandbox did not poll for
// SandboxHostGiveUp), which leaves it cleanup_pending with the reason as
// the error.
func (w *sandboxRun) teardown(ctx workflow.Context) bool {
	in := SandboxDestroy{UID: w.in.UID, Provider: w.in.Provider}
	quick := w.onHost(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 4},
	}), SandboxHostPickup)
	err := workflow.ExecuteActivity(quick, DestroySandboxActivity, in).Get(ctx, nil)
	if err == nil {
		return true
	}
	w.state.Status, w.state.Error = SandboxCleanupPending, err.Error()
	_ = w.record(ctx)
	patient := w.onHost(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 30 * time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute},
	}), SandboxHostGiveUp)
	err = workflow.ExecuteActivity(patient, DestroySandboxActivity, in).Get(ctx, nil)
	if err != nil && w.state.Endpoint.HostQueue != "" {
		w.state.Error = fmt.Sprintf("destroy not confirmed: host queue %s: %v", w.state.Endpoint.HostQueue, err)
		return false
	}
	w.state.Error = ""
	return true
}

// record mirrors the state into the database row.
func (w *sandboxRun) record(ctx workflow.Context) error {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	rec := SandboxRecord{UID: w.state.UID, Status: w.state.Status, Endpoint: w.state.Endpoint, ExpiresAt: w.state.ExpiresAt, Error: w.state.Error,
		EndReason: w.state.EndReason}
	return workflow.ExecuteActivity(actx, RecordSandboxActivity, rec).Get(ctx, nil)
}
