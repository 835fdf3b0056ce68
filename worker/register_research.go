package worker

import (
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	researchact "github.com/gatehouse/gatehouse/activities/research"
	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

// registerResearch registers the research workflows and activities.
func registerResearch(r sdkworker.Registry, deps Dependencies) {
	r.RegisterWorkflowWithOptions(researchwf.Experiment, workflow.RegisterOptions{Name: researchwf.ExperimentWorkflowName})
	acts := &researchact.Activities{DB: deps.DB}
	r.RegisterActivityWithOptions(acts.RecordExperiment, activity.RegisterOptions{Name: researchwf.RecordExperimentActivity})
}
