package research

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// EnsureSandboxReapers creates, or updates to the configuration, the
// orphan reaper's schedules: one on taskQueue for providers any worker
// reaches, and, when hostQueue is set (this worker offers local
// sandboxes), one whose runs sweep that host's local sandboxes. Every
// worker start calls it, so each host that holds local sandboxes has its
// reaper.
func EnsureSandboxReapers(ctx context.Context, c client.Client, taskQueue, hostQueue string, every time.Duration) error {
	if err := ensureReaper(ctx, c, wf.SandboxReaperScheduleID, taskQueue, wf.ReapInput{}, every); err != nil {
		return err
	}
	if hostQueue == "" {
		return nil
	}
	return ensureReaper(ctx, c, hostReaperScheduleID(hostQueue), taskQueue, wf.ReapInput{HostQueue: hostQueue}, every)
}

// hostReaperScheduleID names the reaper schedule of the host polling
// hostQueue.
func hostReaperScheduleID(hostQueue string) string {
	return wf.SandboxReaperScheduleID + "-" + hostQueue
}

// hostPollGrace is how recently a worker must have polled a host queue
// for its host to count as alive.
const hostPollGrace = 2 * wf.SandboxReaperPickup

// RetireHostReaper deletes the reaper schedule of the host polling
// hostQueue unless a worker polled that queue within hostPollGrace, and
// reports whether the schedule is gone. A worker long-polls its queue all
// the time, so a host that has not for that long is gone (its local
// sandboxes with it); should it come back, its start recreates the
// schedule (EnsureSandboxReapers).
func RetireHostReaper(ctx context.Context, c client.Client, hostQueue string, now time.Time) (bool, error) {
	for _, kind := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_ACTIVITY, enumspb.TASK_QUEUE_TYPE_WORKFLOW} {
		desc, err := c.DescribeTaskQueue(ctx, hostQueue, kind)
		if err != nil {
			return false, fmt.Errorf("describe host queue %s: %w", hostQueue, err)
		}
		for _, p := range desc.GetPollers() {
			if now.Sub(p.GetLastAccessTime().AsTime()) < hostPollGrace {
				return false, nil
			}
		}
	}
	err := c.ScheduleClient().GetHandle(ctx, hostReaperScheduleID(hostQueue)).Delete(ctx)
	var gone *serviceerror.NotFound
	if err != nil && !errors.As(err, &gone) {
		return false, fmt.Errorf("delete reaper schedule of %s: %w", hostQueue, err)
	}
	return true, nil
}

// RetireHostReaper is the activity of RetireHostReaper, run on the
// shared queue when a host's sweep was never picked up.
func (a *SandboxActivities) RetireHostReaper(ctx context.Context, hostQueue string) (bool, error) {
	if a.Temporal == nil {
		return false, errors.New("sandbox reaper: no Temporal client")
	}
	return RetireHostReaper(ctx, a.Temporal, hostQueue, time.Now())
}

func ensureReaper(ctx context.Context, c client.Client, id, taskQueue string, in wf.ReapInput, every time.Duration) error {
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}}
	action := &client.ScheduleWorkflowAction{ID: id, Workflow: wf.SandboxReaperWorkflowName, Args: []any{in}, TaskQueue: taskQueue,
		WorkflowExecutionTimeout: every}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: id, Spec: spec, Action: action,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP})
	if err == nil {
		return nil
	}
	var exists *serviceerror.AlreadyExists
	if !errors.As(err, &exists) && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("create sandbox reaper schedule %s: %w", id, err)
	}
	return c.ScheduleClient().GetHandle(ctx, id).Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(u client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		s := u.Description.Schedule
		s.Spec, s.Action = &spec, action
		return &client.ScheduleUpdate{Schedule: &s}, nil
	}})
}
