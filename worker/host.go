package worker

import (
	"fmt"
	"os"
	"strings"

	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"

	researchact "github.com/gatehouse/gatehouse/activities/research"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/sandbox/deploy"
	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

// HostQueue is the task queue only the workers on this host poll:
// <cfg.TaskQueue>-host-<host id>, the id being cfg.WorkerHostID or else
// the hostname. It comes from the host, not the process, so a restarted
// worker polls the queue its local sandboxes' activities wait on.
func HostQueue(cfg config.Config) (string, error) {
	id := cfg.WorkerHostID
	if id == "" {
		name, err := os.Hostname()
		if err != nil {
			return "", fmt.Errorf("host task queue: %w (set GATEHOUSE_WORKER_HOST_ID)", err)
		}
		id = name
	}
	id = SanitizeHostID(id)
	if id == "" {
		return "", fmt.Errorf("host task queue: empty host id (set GATEHOUSE_WORKER_HOST_ID)")
	}
	return cfg.TaskQueue + researchwf.SandboxHostQueueSuffix + id, nil
}

// SanitizeHostID lowercases id and turns every run of characters other
// than a-z, 0-9, '.', '_' and '-' into one '-', trimmed at both ends.
func SanitizeHostID(id string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(id) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// registerSandboxHost registers, on a host queue worker, only the sandbox
// activities that touch the machine.
func registerSandboxHost(r sdkworker.Registry, deps Dependencies) {
	deps.Log = nil // registerResearch already said if providers are unavailable
	sbx := sandboxActivities(deps)
	r.RegisterActivityWithOptions(sbx.ProvisionSandbox, activity.RegisterOptions{Name: researchwf.ProvisionSandboxActivity})
	r.RegisterActivityWithOptions(sbx.DestroySandbox, activity.RegisterOptions{Name: researchwf.DestroySandboxActivity})
	r.RegisterActivityWithOptions(sbx.InspectSandbox, activity.RegisterOptions{Name: researchwf.InspectSandboxActivity})
	r.RegisterActivityWithOptions(sbx.ReapSandboxes, activity.RegisterOptions{Name: researchwf.ReapSandboxesActivity})
}

// sandboxActivities are the sandbox activities over this process's
// providers (shared by the worker and the API of one process).
func sandboxActivities(deps Dependencies) *researchact.SandboxActivities {
	providers, err := deploy.Shared(deps.Config)
	if err != nil && deps.Log != nil {
		// Kept as unavailable providers: requests and health checks say why.
		deps.Log.Error("sandbox providers unavailable", "err", err)
	}
	return &researchact.SandboxActivities{DB: deps.DB, Providers: providers, HostQueue: deps.HostQueue, Temporal: deps.Temporal}
}

// hostWorkers is the shared task queue's worker and this host's queue
// worker, started and stopped as one.
type hostWorkers struct {
	sdkworker.Worker
	host sdkworker.Worker
}

// Start starts the host queue worker, then the shared one.
func (w *hostWorkers) Start() error {
	if err := w.host.Start(); err != nil {
		return fmt.Errorf("host queue: %w", err)
	}
	if err := w.Worker.Start(); err != nil {
		w.host.Stop()
		return err
	}
	return nil
}

// Run starts both workers and blocks until interruptCh fires or a worker
// fails, then stops both.
func (w *hostWorkers) Run(interruptCh <-chan interface{}) error {
	if err := w.host.Start(); err != nil {
		return fmt.Errorf("host queue: %w", err)
	}
	defer w.host.Stop()
	return w.Worker.Run(interruptCh)
}

// Stop stops both workers at once, so their activities drain within one
// WorkerStopTimeout rather than one after the other.
func (w *hostWorkers) Stop() {
	hostStopped := make(chan struct{})
	go func() { w.host.Stop(); close(hostStopped) }()
	w.Worker.Stop()
	<-hostStopped
}
