package research

import "go.temporal.io/sdk/workflow"

// FinalStateChange versions the last step of the experiment and reflection
// workflows that stores their final state. Histories recorded before it
// replay without the step.
const FinalStateChange = "store-final-state"

// storeFinal runs, as the workflow's last step, the activity that stores
// st as its final state: once the workflow closes (and Temporal purges it
// after the namespace's retention) reads are served from that row. The
// activity is keyed by the workflow ID, so a retry writes nothing twice.
func storeFinal(ctx, actx workflow.Context, activity string, st any) error {
	if workflow.GetVersion(ctx, FinalStateChange, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	return workflow.ExecuteActivity(actx, activity, st).Get(ctx, nil)
}
