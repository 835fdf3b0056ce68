package research

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The sandbox's Updates: the api's release and request answer once the
// workflow mirrored the outcome into the sandbox row, instead of
// signalling and polling the row. Registering them writes nothing to
// history and a recorded history holds none, so they need no GetVersion;
// SandboxReleaseSignal stays for runs and clients that still send it.
const (
	// SandboxReleaseUpdate tears the sandbox down (argument SandboxRelease)
	// and answers the SandboxState once the end is recorded.
	SandboxReleaseUpdate = "sandbox-release"
	// SandboxProvisionedUpdate answers the SandboxState once provisioning
	// ended (running or failed) and is recorded.
	SandboxProvisionedUpdate = "sandbox-provisioned"
)

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
	return workflow.SetUpdateHandler(ctx, SandboxProvisionedUpdate, func(ctx workflow.Context) (SandboxState, error) {
		err := workflow.Await(ctx, func() bool { return w.provisioned })
		return w.state, err
	})
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
