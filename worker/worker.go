// Package worker registers Gatehouse's workflows and activities on a Temporal
// worker. It is the one place that knows every domain's registrations.
package worker

import (
	"log/slog"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/workflows/platform"
)

// Dependencies are what activities need: database, blob store, clients.
type Dependencies struct {
	DB     *gorm.DB
	Blobs  blobstore.Store
	Config config.Config
	Log    *slog.Logger
	// HostQueue is this host's task queue (see HostQueue); empty: none,
	// as for a replayer.
	HostQueue string
	// Temporal lets activities signal workflows (New sets it to the
	// worker's client).
	Temporal client.Client
}

// New creates a worker on taskQueue with every workflow and activity
// registered and, when deps.HostQueue is set, a second one polling it
// with only the sandbox activities that touch a machine, so a local
// sandbox's activities reach the host holding it. The one Worker returned
// starts and stops both; the caller starts and stops it.
func New(c client.Client, taskQueue string, deps Dependencies) sdkworker.Worker {
	if deps.Temporal == nil {
		deps.Temporal = c
	}
	w := sdkworker.New(c, taskQueue, workerOptions(deps.Config))
	Register(w, deps)
	if deps.HostQueue == "" {
		return w
	}
	host := sdkworker.New(c, deps.HostQueue, workerOptions(deps.Config))
	registerSandboxHost(host, deps)
	return &hostWorkers{Worker: w, host: host}
}

// workerOptions are both workers' options. WorkerStopTimeout lets
// in-flight activities finish when the worker stops (SIGTERM in a rolling
// update) instead of cancelling them to be retried elsewhere from scratch;
// drainKeepAlive keeps their heartbeats going meanwhile.
//
// Pollers scale with the backlog (the server tells each poll whether more
// tasks wait). The SDK's default of two workflow-task pollers took a
// burst of 5,000 rollouts' first tasks at about 200 a second with the
// machine mostly idle, each poll waiting on its round trip; with pollers
// that scale, the burst's first tasks ran as fast as it was enqueued.
func workerOptions(cfg config.Config) sdkworker.Options {
	scaling := sdkworker.NewPollerBehaviorAutoscaling(sdkworker.PollerBehaviorAutoscalingOptions{})
	return sdkworker.Options{WorkerStopTimeout: cfg.WorkerStopTimeout,
		WorkflowTaskPollerBehavior: scaling, ActivityTaskPollerBehavior: scaling,
		Interceptors: []interceptor.WorkerInterceptor{&drainKeepAlive{}}}
}

// Register adds every workflow and activity to a registry (a worker or a
// replayer), under their stable names.
func Register(r sdkworker.Registry, deps Dependencies) {
	r.RegisterWorkflowWithOptions(platform.Ping, workflow.RegisterOptions{Name: platform.PingWorkflow})
	registerFlyLab(r, deps)
	registerFlywheel(r, deps)
	registerResearch(r, deps)
	registerReflection(r, deps)
}
