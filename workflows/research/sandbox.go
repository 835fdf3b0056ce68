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
}

// Sandbox is the workflow behind sandbox/<uid>. Provisioning and teardown
// are retried activities; the time limit is a durable timer that
// SandboxExtendSignal moves; expiry or SandboxReleaseSignal tears down.
// A teardown that keeps failing leaves the sandbox cleanup_pending while
// it is retried without limit. A local sandbox lives on the worker host
// that provisioned it: its re-provisioning and teardown run on that
// host's task queue, and a host that never polls again ends the sandbox
// cleanup_pending instead of holding teardown forever.
func Sandbox(ctx workflow.Context, in SandboxInput) (SandboxState, error) {
	w := &sandboxRun{in: in, state: SandboxState{UID: in.UID, Status: SandboxProvisioning}}
	if err := w.setup(ctx); err != nil {
		return w.state, err
	}
	return w.run(ctx)
}

func (w *sandboxRun) setup(ctx workflow.Context) error {
	limit := w.in.TimeLimit
	if limit <= 0 {
		limit = SandboxDefaultTimeLimit
	}
	w.state.ExpiresAt = workflow.Now(ctx).Add(limit)
	return workflow.SetQueryHandler(ctx, SandboxStateQuery, func() (SandboxState, error) { return w.state, nil })
}

func (w *sandboxRun) run(ctx workflow.Context) (SandboxState, error) {
	w.pinned = workflow.GetVersion(ctx, SandboxHostQueueChange, workflow.DefaultVersion, 1) >= 1
	if err := w.record(ctx); err != nil {
		return w.state, err
	}
	var ep SandboxEndpoint
	if err := workflow.ExecuteActivity(provisionOptions(ctx), ProvisionSandboxActivity, w.in).Get(ctx, &ep); err != nil {
		w.state.Status, w.state.EndReason, w.state.Error = SandboxFailed, SandboxEndFailed, err.Error()
		w.teardown(ctx) // a half-made machine must not outlive the workflow
		w.state.Status = SandboxFailed
		return w.state, w.record(ctx)
	}
	w.state.Status, w.state.Endpoint = SandboxRunning, w.kept(ep)
	if err := w.record(ctx); err != nil {
		return w.state, err
	}
	w.state.EndReason = w.waitForExpiryOrRelease(ctx)
	if w.teardown(ctx) {
		w.state.Status = SandboxTerminated
	}
	return w.state, w.record(ctx)
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

// waitForExpiryOrRelease waits on the time-limit timer, restarting it
// whenever an extend moves the limit or a re-provision ran, and answers
// why the wait ended.
func (w *sandboxRun) waitForExpiryOrRelease(ctx workflow.Context) string {
	extendCh := workflow.GetSignalChannel(ctx, SandboxExtendSignal)
	releaseCh := workflow.GetSignalChannel(ctx, SandboxReleaseSignal)
	reprovisionCh := workflow.GetSignalChannel(ctx, SandboxReprovisionSignal)
	for {
		tctx, cancel := workflow.WithCancel(ctx)
		timer := workflow.NewTimer(tctx, w.state.ExpiresAt.Sub(workflow.Now(ctx)))
		reason := ""
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(timer, func(workflow.Future) { reason = SandboxEndExpired })
		sel.AddReceive(extendCh, func(c workflow.ReceiveChannel, _ bool) {
			var ext SandboxExtend
			c.Receive(ctx, &ext)
			add := ExtendBy(ext.Seconds)
			w.state.ExpiresAt = w.state.ExpiresAt.Add(add)
			w.state.Extended += add
			w.state.Revision++
		})
		reprovision := false
		sel.AddReceive(reprovisionCh, func(c workflow.ReceiveChannel, _ bool) {
			var rp SandboxReprovision
			c.Receive(ctx, &rp)
			reprovision = true
		})
		sel.AddReceive(releaseCh, func(c workflow.ReceiveChannel, _ bool) {
			var rel SandboxRelease
			c.Receive(ctx, &rel)
			w.state.Revision++
			reason = SandboxEndReleased
		})
		sel.Select(ctx)
		cancel()
		if reason != "" {
			return reason
		}
		if reprovision {
			w.reprovision(ctx)
		}
		_ = w.record(ctx) // the mirror is best effort; the workflow is the authority
	}
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
	rec := SandboxRecord{UID: w.state.UID, Status: w.state.Status, Endpoint: w.state.Endpoint, ExpiresAt: w.state.ExpiresAt, Error: w.state.Error}
	return workflow.ExecuteActivity(actx, RecordSandboxActivity, rec).Get(ctx, nil)
}
