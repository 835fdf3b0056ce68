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
	return ensureReaper(ctx, c, wf.SandboxReaperScheduleID+"-"+hostQueue, taskQueue, wf.ReapInput{HostQueue: hostQueue}, every)
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
