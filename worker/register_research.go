package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	researchact "github.com/gatehouse/gatehouse/activities/research"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

// registerResearch registers the research workflows and activities.
func registerResearch(r sdkworker.Registry, deps Dependencies) {
	r.RegisterWorkflowWithOptions(researchwf.Experiment, workflow.RegisterOptions{Name: researchwf.ExperimentWorkflowName})
	acts := &researchact.Activities{DB: deps.DB}
	r.RegisterActivityWithOptions(acts.RecordExperiment, activity.RegisterOptions{Name: researchwf.RecordExperimentActivity})
	r.RegisterActivityWithOptions(acts.StoreExperimentFinal, activity.RegisterOptions{Name: researchwf.StoreExperimentFinalActivity})
	decisions := &researchact.DecisionActivities{DB: deps.DB}
	r.RegisterActivityWithOptions(decisions.VerifyDecision, activity.RegisterOptions{Name: researchwf.VerifyDecisionActivity})
	r.RegisterWorkflowWithOptions(researchwf.StorageSweep, workflow.RegisterOptions{Name: researchwf.StorageSweepWorkflowName})
	storage := &researchact.StorageActivities{DB: deps.DB, Blobs: deps.Blobs, Log: deps.Log}
	r.RegisterActivityWithOptions(storage.SweepStorage, activity.RegisterOptions{Name: researchwf.SweepStorageActivity})
	r.RegisterWorkflowWithOptions(researchwf.Sandbox, workflow.RegisterOptions{Name: researchwf.SandboxWorkflowName})
	sbx := sandboxActivities(deps)
	r.RegisterActivityWithOptions(sbx.ProvisionSandbox, activity.RegisterOptions{Name: researchwf.ProvisionSandboxActivity})
	r.RegisterActivityWithOptions(sbx.DestroySandbox, activity.RegisterOptions{Name: researchwf.DestroySandboxActivity})
	r.RegisterActivityWithOptions(sbx.RecordSandbox, activity.RegisterOptions{Name: researchwf.RecordSandboxActivity})
	r.RegisterWorkflowWithOptions(researchwf.SandboxInspect, workflow.RegisterOptions{Name: researchwf.SandboxInspectWorkflowName})
	r.RegisterWorkflowWithOptions(researchwf.SandboxReaper, workflow.RegisterOptions{Name: researchwf.SandboxReaperWorkflowName})
	r.RegisterActivityWithOptions(sbx.ReapSandboxes, activity.RegisterOptions{Name: researchwf.ReapSandboxesActivity})
	r.RegisterActivityWithOptions(sbx.RetireHostReaper, activity.RegisterOptions{Name: researchwf.RetireHostReaperActivity})
}

// EnsureResearchSchedules creates the storage sweep schedule, or updates
// its interval and task queue when it exists, so every worker start leaves
// exactly one schedule matching the configuration.
func EnsureResearchSchedules(ctx context.Context, c client.Client, cfg config.Config) error {
	if err := ensureStorageSweep(ctx, c, cfg); err != nil {
		return err
	}
	if !cfg.Features.Sandboxes {
		return nil
	}
	hostQueue := "" // this host's local sandboxes get their own reaper
	if slices.Contains(cfg.Sandbox.Providers, sandbox.LocalName) {
		hostQueue, _ = HostQueue(cfg)
	}
	return researchact.EnsureSandboxReapers(ctx, c, cfg.TaskQueue, hostQueue, cfg.Sandbox.ReapInterval)
}

// ResumeSandboxes asks every running sandbox workflow to re-provision its
// machine. A local sandbox's SSH server lives in the worker process, so a
// restarted worker has none: the workflow's re-provisioning (idempotent,
// on the same port when it is free) brings it back and mirrors a changed
// endpoint into the sandbox row. Machines that are up answer unchanged.
func ResumeSandboxes(ctx context.Context, c client.Client) error {
	query := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", researchwf.SandboxWorkflowName)
	var token []byte
	for {
		page, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token})
		if err != nil {
			return fmt.Errorf("list running sandboxes: %w", err)
		}
		for _, ex := range page.Executions {
			err := c.SignalWorkflow(ctx, ex.GetExecution().GetWorkflowId(), "", researchwf.SandboxReprovisionSignal,
				researchwf.SandboxReprovision{Reason: "worker start"})
			var gone *serviceerror.NotFound
			if err != nil && !errors.As(err, &gone) {
				return fmt.Errorf("resume sandbox %s: %w", ex.GetExecution().GetWorkflowId(), err)
			}
		}
		if token = page.NextPageToken; len(token) == 0 {
			return nil
		}
	}
}

// ensureStorageSweep creates or updates the storage sweep schedule.
func ensureStorageSweep(ctx context.Context, c client.Client, cfg config.Config) error {
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: cfg.StorageSweepInterval}}}
	action := &client.ScheduleWorkflowAction{ID: researchwf.StorageSweepWorkflowIDPrefix, Workflow: researchwf.StorageSweepWorkflowName,
		TaskQueue: cfg.TaskQueue}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{ID: researchwf.StorageSweepScheduleID, Spec: spec, Action: action,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP})
	if err == nil {
		return nil
	}
	var exists *serviceerror.AlreadyExists
	if !errors.As(err, &exists) && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return fmt.Errorf("create storage sweep schedule: %w", err)
	}
	h := c.ScheduleClient().GetHandle(ctx, researchwf.StorageSweepScheduleID)
	return h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		s := in.Description.Schedule
		s.Spec = &spec
		s.Action = action
		return &client.ScheduleUpdate{Schedule: &s}, nil
	}})
}
