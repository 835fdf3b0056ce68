package worker

import (
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	activities "github.com/gatehouse/gatehouse/activities/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	workflows "github.com/gatehouse/gatehouse/workflows/flylab"
)

// registerFlyLab registers the flylab workflows and activities.
func registerFlyLab(r sdkworker.Registry, deps Dependencies) {
	r.RegisterWorkflowWithOptions(workflows.Session, workflow.RegisterOptions{Name: workflows.SessionWorkflow})
	r.RegisterWorkflowWithOptions(workflows.Experiment, workflow.RegisterOptions{Name: workflows.ExperimentWorkflow})
	// The worker has no public URL of its own (in compose it is not
	// reachable at all): stored results name the schema by its path, and
	// the API answers with its public URL's schema URL.
	a := &activities.Activities{DB: deps.DB, SchemaURL: models.ExportSchemaPath}
	a.Register(r)
}
