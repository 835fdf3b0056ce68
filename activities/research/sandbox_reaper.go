package research

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"

	"github.com/gatehouse/gatehouse/internal/researchclient"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// ReapSandboxes destroys the machines this worker's providers hold whose
// sandbox workflow is not running (closed, or never known to Temporal),
// and ends their rows. On a host queue it sweeps the local provider; on
// the shared queue every other one. A machine whose workflow cannot be
// read (Temporal unreachable) is left alone and listed as unchecked.
func (a *SandboxActivities) ReapSandboxes(ctx context.Context, in wf.ReapInput) (wf.ReapResult, error) {
	var out wf.ReapResult
	if a.Temporal == nil {
		return out, errors.New("sandbox reaper: no Temporal client")
	}
	for _, p := range a.Providers.All() {
		h, ok := p.(sandbox.Holder)
		if !ok || (p.Name() == sandbox.LocalName) != (in.HostQueue != "") {
			continue
		}
		uids, err := h.Holding(ctx)
		if err != nil {
			return out, err
		}
		for _, uid := range uids {
			activity.RecordHeartbeat(ctx, uid)
			live, err := a.workflowRunning(ctx, uid)
			if err != nil {
				out.Unchecked = append(out.Unchecked, uid)
				continue
			}
			if live {
				continue
			}
			// The row ends and the experiment hears of it before the machine
			// goes: a pass that fails between them finds the machine again
			// and finishes, where a destroyed machine is never listed again.
			if a.DB != nil {
				if err := a.endReaped(ctx, uid); err != nil {
					activity.GetLogger(ctx).Warn("sandbox reaper: row not ended or experiment not told; the next pass retries", "uid", uid, "error", err)
					out.Unchecked = append(out.Unchecked, uid)
					continue
				}
			}
			if err := p.Destroy(ctx, uid); err != nil {
				out.Unchecked = append(out.Unchecked, uid)
				continue
			}
			out.Reaped = append(out.Reaped, uid)
		}
	}
	return out, nil
}

// endReaped ends the row of a sandbox being reaped and, when the reaper
// ended it (on this pass or an earlier one that failed before the machine
// went) and it was attached, tells its experiment the sandbox ended
// abnormally (SandboxEndReaped), so the agent is offered retry_running.
// The experiment takes a repeated notice as one.
func (a *SandboxActivities) endReaped(ctx context.Context, uid string) error {
	sb, reaped, err := models.ReapSandbox(ctx, a.DB, uid, time.Now().UTC())
	if err != nil || !reaped {
		return err
	}
	return researchclient.NotifySandboxReport(ctx, a.Temporal, sb.ExperimentID,
		wf.SandboxActivity{SandboxUID: uid, Ended: wf.SandboxEndReaped})
}

// workflowRunning reports whether sandbox uid's workflow runs (its latest
// run: one that continued as new is running).
func (a *SandboxActivities) workflowRunning(ctx context.Context, uid string) (bool, error) {
	desc, err := a.Temporal.DescribeWorkflowExecution(ctx, wf.SandboxWorkflowID(uid), "")
	var gone *serviceerror.NotFound
	switch {
	case errors.As(err, &gone):
		return false, nil
	case err != nil:
		return false, err
	}
	return desc.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}
