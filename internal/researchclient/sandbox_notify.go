package researchclient

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// NotifySandboxActivity tells experiment experimentID's workflow (from a
// client: the API or an activity, never a workflow) that its attached
// sandbox uid started or stopped running. An experiment whose workflow
// has ended needs no gate, so NotFound is not an error.
func NotifySandboxActivity(ctx context.Context, c client.Client, experimentID, uid string, running bool) error {
	return NotifySandboxReport(ctx, c, experimentID, wf.SandboxActivity{SandboxUID: uid, Running: running})
}

// NotifySandboxReport sends report, which may say how the sandbox ended,
// to experiment experimentID's workflow, as NotifySandboxActivity does.
func NotifySandboxReport(ctx context.Context, c client.Client, experimentID string, report wf.SandboxActivity) error {
	if c == nil || experimentID == "" {
		return nil
	}
	err := c.SignalWorkflow(ctx, wf.ExperimentWorkflowID(experimentID), "", wf.SandboxActivitySignal, report)
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		return nil
	}
	return err
}
