package research

import (
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
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
	// RetireHostReaperActivity deletes the reaper schedule of a host that
	// no longer polls its queue (a replaced pod, a decommissioned machine).
	RetireHostReaperActivity = "research.RetireHostReaper"
	// retireGoneHostChange versions the run that retires its host's
	// schedule when the host never picked the sweep up.
	retireGoneHostChange = "retire-gone-host-reaper"
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
	if in.HostQueue != "" && neverPickedUp(err) && workflow.GetVersion(ctx, retireGoneHostChange, workflow.DefaultVersion, 1) == 1 {
		return out, retireGoneHost(ctx, in.HostQueue, err)
	}
	return out, err
}

// neverPickedUp reports whether an activity failed because no worker took
// it from its queue in time.
func neverPickedUp(err error) bool {
	var te *temporal.TimeoutError
	return errors.As(err, &te) && te.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START
}

// retireGoneHost runs when a host's sweep found no poller: the host's
// local sandboxes went with it, so its schedule is deleted instead of
// failing every interval forever (a host that comes back recreates it at
// start). A host that still polls keeps it, and the run reports the
// pickup failure.
func retireGoneHost(ctx workflow.Context, hostQueue string, pickup error) error {
	opts := workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumAttempts: 3}}
	var retired bool
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), RetireHostReaperActivity, hostQueue).Get(ctx, &retired); err != nil {
		return err
	}
	if retired {
		workflow.GetLogger(ctx).Info("sandbox reaper retired the schedule of a host that no longer polls", "host_queue", hostQueue)
		return nil
	}
	return pickup
}
