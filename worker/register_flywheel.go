package worker

import (
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	acts "github.com/gatehouse/gatehouse/activities/flywheel"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// registerFlywheel registers the flywheel workflows and activities.
func registerFlywheel(r sdkworker.Registry, deps Dependencies) {
	r.RegisterWorkflowWithOptions(wf.Rollout, workflow.RegisterOptions{Name: wf.RolloutWorkflow})
	a := &acts.Activities{DB: deps.DB}
	r.RegisterActivityWithOptions(a.ExpireLease, activity.RegisterOptions{Name: wf.ExpireLeaseActivity})
	r.RegisterActivityWithOptions(a.Finalize, activity.RegisterOptions{Name: wf.FinalizeActivity})
}
