package research

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The sandbox's Updates: the api's release and request answer once the
// workflow mirrored the outcome into the sandbox row, and its extend once
// the new limit is applied, instead of signalling and polling. Registering
// them writes nothing to history and a recorded history holds none, so
// they need no GetVersion; SandboxReleaseSignal and SandboxExtendSignal
// stay for runs and clients that still send them.
const (
	// SandboxReleaseUpdate tears the sandbox down (argument SandboxRelease)
	// and answers the SandboxState once the end is recorded.
	SandboxReleaseUpdate = "sandbox-release"
	// SandboxProvisionedUpdate answers the SandboxState once provisioning
	// ended (running or failed) and is recorded.
	SandboxProvisionedUpdate = "sandbox-provisioned"
	// SandboxExtendUpdate moves the time limit as SandboxExtendSignal does
	// (argument SandboxExtend, Seconds from 1 to SandboxMaxExtend) and
	// answers the SandboxState with the extension applied.
	SandboxExtendUpdate = "sandbox-extend"
)

// ErrTypeSandboxEnded is the ApplicationError type with which
// SandboxExtendUpdate's validator refuses a sandbox whose wait is over
// (expired, released or failed): nothing would move its limit any more.
const ErrTypeSandboxEnded = "sandbox_ended"

// setupUpdates registers the release and provisioned Updates.
func (w *sandboxRun) setupUpdates(ctx workflow.Context) error {
	w.releases = workflow.NewBufferedChannel(ctx, 1)
	err := workflow.SetUpdateHandlerWithOptions(ctx, SandboxReleaseUpdate,
		func(ctx workflow.Context, r SandboxRelease) (SandboxState, error) {
			w.releases.SendAsync(r) // a second release finds one pending
			err := workflow.Await(ctx, func() bool { return w.ended })
			return w.state, err
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, r SandboxRelease) error {
			if r.Reason == "" {
				return temporal.NewApplicationErrorWithOptions("a release names its reason", ErrTypeInvalidInput,
					temporal.ApplicationErrorOptions{NonRetryable: true})
			}
			return nil
		}})
	if err != nil {
		return err
	}
	err = workflow.SetUpdateHandler(ctx, SandboxProvisionedUpdate, func(ctx workflow.Context) (SandboxState, error) {
		err := workflow.Await(ctx, func() bool { return w.provisioned })
		return w.state, err
	})
	if err != nil {
		return err
	}
	return w.setupExtendUpdate(ctx)
}

// finish marks the sandbox ended and recorded, lets the Updates waiting
// for that answer, and passes err on.
func (w *sandboxRun) finish(ctx workflow.Context, err error) error {
	w.ended, w.provisioned = true, true
	if aerr := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); aerr != nil {
		return aerr
	}
	return err
}

// setupExtendUpdate registers SandboxExtendUpdate. Its handler applies
// the extension with extend, the function the signal's receiver calls,
// and wakes the wait, which then restarts its timer at the new limit and
// mirrors it, as after a signal; the answer is the state with the
// extension applied. The handler never blocks, so an accepted extension
// is answered in the task that accepted it, before the run could
// continue as new. Its validator refuses, before anything is written to
// history, seconds outside 1..SandboxMaxExtend (the api resolves the
// default) and a sandbox whose wait is over.
func (w *sandboxRun) setupExtendUpdate(ctx workflow.Context) error {
	w.extended = workflow.NewBufferedChannel(ctx, 1)
	return workflow.SetUpdateHandlerWithOptions(ctx, SandboxExtendUpdate,
		func(_ workflow.Context, ext SandboxExtend) (SandboxState, error) {
			w.extend(ext)
			w.extended.SendAsync(true) // a wake already pending reads this state too
			return w.state, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, ext SandboxExtend) error {
			switch {
			case ext.Seconds < 1 || time.Duration(ext.Seconds)*time.Second > SandboxMaxExtend:
				return temporal.NewApplicationErrorWithOptions(
					fmt.Sprintf("an extension is 1 to %d seconds, not %d", int(SandboxMaxExtend.Seconds()), ext.Seconds), ErrTypeInvalidInput,
					temporal.ApplicationErrorOptions{NonRetryable: true})
			case w.ended || w.state.EndReason != "":
				return temporal.NewApplicationErrorWithOptions(
					fmt.Sprintf("sandbox %s has ended (%s); it cannot be extended", w.state.UID, w.state.EndReason), ErrTypeSandboxEnded,
					temporal.ApplicationErrorOptions{NonRetryable: true})
			}
			return nil
		}})
}
