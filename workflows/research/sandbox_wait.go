package research

import "go.temporal.io/sdk/workflow"

// sandboxSignals are the channels a running sandbox listens on.
type sandboxSignals struct {
	extend, release, reprovision workflow.ReceiveChannel
}

func signalsOf(ctx workflow.Context) sandboxSignals {
	return sandboxSignals{extend: workflow.GetSignalChannel(ctx, SandboxExtendSignal),
		release:     workflow.GetSignalChannel(ctx, SandboxReleaseSignal),
		reprovision: workflow.GetSignalChannel(ctx, SandboxReprovisionSignal)}
}

// waitForExpiryOrRelease waits on the time-limit timer, restarting it
// whenever an extend moves the limit or a re-provision ran, and answers
// why the wait ended, or again=true when this run has handled
// SandboxContinueAfter signals (or Temporal suggests it) and should
// continue as new. Signals already delivered are applied first, so none
// is lost across the new run.
func (w *sandboxRun) waitForExpiryOrRelease(ctx workflow.Context) (reason string, again bool) {
	ch := signalsOf(ctx)
	for handled := 0; ; handled++ {
		if handled >= SandboxContinueAfter || handled > 0 && workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			if workflow.GetVersion(ctx, SandboxContinueAsNewChange, workflow.DefaultVersion, 1) >= 1 {
				if reason := w.drain(ctx, ch); reason != "" {
					return reason, false
				}
				return "", true
			}
		}
		tctx, cancel := workflow.WithCancel(ctx)
		timer := workflow.NewTimer(tctx, w.state.ExpiresAt.Sub(workflow.Now(ctx)))
		reason, reprovision := "", false
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(timer, func(workflow.Future) { reason = SandboxEndExpired })
		sel.AddReceive(ch.extend, func(c workflow.ReceiveChannel, _ bool) {
			var ext SandboxExtend
			c.Receive(ctx, &ext)
			w.extend(ext)
		})
		sel.AddReceive(w.extended, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) }) // the Update applied it
		sel.AddReceive(ch.reprovision, func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, &SandboxReprovision{})
			reprovision = true
		})
		released := func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, &SandboxRelease{})
			w.state.Revision++
			reason = SandboxEndReleased
		}
		sel.AddReceive(ch.release, released)
		sel.AddReceive(w.releases, released)
		sel.Select(ctx)
		cancel()
		if reason != "" {
			return reason, false
		}
		if reprovision {
			w.reprovision(ctx)
		}
		_ = w.record(ctx) // the mirror is best effort; the workflow is the authority
	}
}

// drain applies the signals delivered but not yet received before the run
// continues as new: extends move the limit, a re-provision runs, a
// release ends the sandbox.
func (w *sandboxRun) drain(ctx workflow.Context, ch sandboxSignals) string {
	var ext SandboxExtend
	for ch.extend.ReceiveAsync(&ext) {
		w.extend(ext)
	}
	reprovision := false
	for ch.reprovision.ReceiveAsync(&SandboxReprovision{}) {
		reprovision = true
	}
	if reprovision {
		w.reprovision(ctx)
	}
	if ch.release.ReceiveAsync(&SandboxRelease{}) || w.releases.ReceiveAsync(&SandboxRelease{}) {
		w.state.Revision++
		return SandboxEndReleased
	}
	if !workflow.Now(ctx).Before(w.state.ExpiresAt) {
		return SandboxEndExpired
	}
	return ""
}

// extend moves the limit by ExtendBy, never past LifetimeEndsAt, and
// counts what it really added.
func (w *sandboxRun) extend(ext SandboxExtend) {
	to := w.state.ExpiresAt.Add(ExtendBy(ext.Seconds))
	if !w.state.LifetimeEndsAt.IsZero() {
		to = earliest(to, w.state.LifetimeEndsAt)
	}
	if to.After(w.state.ExpiresAt) {
		w.state.Extended += to.Sub(w.state.ExpiresAt)
		w.state.ExpiresAt = to
	}
	w.state.Revision++
}
