package research

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// strandedAfter is how old a provisioning row must be before a request
// takes it for one whose workflow never started (its own request starts
// the workflow within milliseconds of storing it).
const strandedAfter = 30 * time.Second

// sandboxStartOptions start the workflow of sandbox uid at most once: a
// closed workflow of that ID is not run again, and a start that finds one
// answers WorkflowExecutionAlreadyStarted.
func sandboxStartOptions(uid, taskQueue string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: wf.SandboxWorkflowID(uid), TaskQueue: taskQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true}
}

// recoverStranded completes the pair "row stored, workflow started" for
// projectID's provisioning rows whose request died between the two: each
// gets its workflow now, with the time it has left, so the row neither
// blocks new requests nor counts against the quota forever. A row whose
// workflow exists but has closed without recording its end is failed.
// Failures are logged: the next request tries again.
func (s *Service) recoverStranded(ctx context.Context, projectID string) {
	if s.Temporal == nil {
		return
	}
	rows, err := models.StrandedSandboxes(ctx, s.DB, projectID, s.now().Add(-strandedAfter), 50)
	if err != nil {
		s.Log.WarnContext(ctx, "sandbox: stranded rows not read", "project_id", projectID, "err", err)
		return
	}
	for _, row := range rows {
		if err := s.recoverSandbox(ctx, row); err != nil {
			s.Log.WarnContext(ctx, "sandbox: stranded row not recovered", "sandbox_uid", row.UID, "err", err)
		}
	}
}

func (s *Service) recoverSandbox(ctx context.Context, row models.Sandbox) error {
	left := row.ExpiresAt.Sub(s.now())
	if left < time.Minute {
		return s.failStranded(ctx, row, "its time limit passed before its workflow started")
	}
	input := wf.SandboxInput{UID: row.UID, ProjectID: row.ProjectID, Provider: row.Provider, InstanceType: row.InstanceType, Region: row.Region,
		CPU: row.CPU, MemoryMB: row.MemoryMB, GPU: row.GPU, PublicKey: row.PublicKey, TimeLimit: left, MaxLifetime: s.sandboxMaxLifetime()}
	_, err := s.Temporal.ExecuteWorkflow(ctx, sandboxStartOptions(row.UID, s.Config.TaskQueue), wf.SandboxWorkflowName, input)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if !errors.As(err, &started) {
		if err == nil {
			s.Log.InfoContext(ctx, "sandbox: started the workflow of a stranded row", "sandbox_uid", row.UID)
		}
		return err
	}
	desc, err := s.Temporal.DescribeWorkflowExecution(ctx, wf.SandboxWorkflowID(row.UID), "")
	if err != nil {
		return err
	}
	if desc.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return nil // it runs and mirrors the row itself
	}
	return s.failStranded(ctx, row, "its workflow ended without recording the end")
}

func (s *Service) failStranded(ctx context.Context, row models.Sandbox, why string) error {
	return models.MirrorSandbox(ctx, s.DB, models.SandboxUpdate{UID: row.UID, Status: models.SandboxFailed, ExpiresAt: row.ExpiresAt,
		Error: "recovered: " + why}, s.now())
}
