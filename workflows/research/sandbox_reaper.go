package research

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the orphan reaper: Temporal Schedules start it, one on the
// shared task queue for providers any worker reaches (kubernetes) and one
// per worker host for that host's local sandboxes.
const (
	// SandboxReaperWorkflowName is the registered workflow type.
	SandboxReaperWorkflowName = "research.SandboxReaper"
	// ReapSandboxesActivity destroys the machines no live workflow owns.
	ReapSandboxesActivity = "research.ReapSandboxes"
	// SandboxReaperScheduleID is the shared queue's reaper schedule; a
	// host's is SandboxReaperScheduleID + "-" + its host queue.
	SandboxReaperScheduleID = "research-sandbox-reaper"
	// SandboxReaperPickup bounds how long a host's reaper waits for that
	// host to poll (a host gone for good fails its runs fast).
	SandboxReaperPickup = time.Minute
)

// ReapInput names what one reaper run sweeps: the local sandboxes of the
// host polling HostQueue, or (HostQueue empty) every other provider's.
type ReapInput struct {
	HostQueue string `json:",omitempty"`
}

// ReapResult lists what a run destroyed and what it could not check.
type ReapResult struct {
	Reaped    []string `json:",omitempty"`
	Unchecked []string `json:",omitempty"`
}

// SandboxReaper destroys every sandbox machine (a Pod, a local SSH server
// or working directory) whose sandbox workflow is not running: one
// terminated by hand, or lost at a history limit, leaves its machine up
// with nobody to tear it down.
func SandboxReaper(ctx workflow.Context, in ReapInput) (ReapResult, error) {
	opts := workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 10 * time.Second, MaximumAttempts: 3}}
	if in.HostQueue != "" {
		opts.TaskQueue, opts.ScheduleToStartTimeout = in.HostQueue, SandboxReaperPickup
	}
	var out ReapResult
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), ReapSandboxesActivity, in).Get(ctx, &out)
	if len(out.Reaped) > 0 {
		workflow.GetLogger(ctx).Warn("sandbox reaper destroyed orphans", "sandboxes", out.Reaped)
	}
	return out, err
}
