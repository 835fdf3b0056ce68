package worker

import (
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	researchact "github.com/gatehouse/gatehouse/activities/research"
	models "github.com/gatehouse/gatehouse/models/research"
	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

// registerReflection registers the research reflection wave's workflow
// and activities; central refs live in the database unless
// GATEHOUSE_CENTRAL_GIT_DIR names a git repository.
func registerReflection(r sdkworker.Registry, deps Dependencies) {
	r.RegisterWorkflowWithOptions(researchwf.Reflection, workflow.RegisterOptions{Name: researchwf.ReflectionWorkflowName})
	refl := &researchact.ReflectionActivities{DB: deps.DB, Blobs: deps.Blobs, Central: models.NewCentralRefs(deps.DB, deps.Config.CentralGitDir)}
	r.RegisterActivityWithOptions(refl.RecordReflection, activity.RegisterOptions{Name: researchwf.RecordReflectionActivity})
	r.RegisterActivityWithOptions(refl.StoreReflectionFinal, activity.RegisterOptions{Name: researchwf.StoreReflectionFinalActivity})
	r.RegisterActivityWithOptions(refl.AdvanceCentral, activity.RegisterOptions{Name: researchwf.AdvanceCentralActivity})
	r.RegisterActivityWithOptions(refl.PublishReflection, activity.RegisterOptions{Name: researchwf.PublishReflectionActivity})
}
