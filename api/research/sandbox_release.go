package research

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// Release bounds.
const (
	releaseWait = 30 * time.Second
	// checklistFiles bounds the files the checklist hashes per sandbox.
	checklistFiles = 200
)

// retentionHint is what the checklist tells the agent to do first.
const retentionHint = "Nothing was destroyed. Before releasing, pull the outputs you need (sandbox.pull_outputs), pin storage objects that must outlive " +
	"their retention (storage.object action pin), and wait for running commands (sandbox.runs with wait_seconds). Then call sandbox.release " +
	"again with confirm_retained: true; that destroys the working directory."

func sandboxRelease(ctx context.Context, s *Service, c *Call) (any, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return nil, err
	}
	targets, err := s.releaseTargets(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return sandboxReleasePendingResp{Status: "no_active_sandbox", Released: false, PendingRelease: []retentionChecklistResp{}}, nil
	}
	if !in.ConfirmRetained {
		pending := make([]retentionChecklistResp, 0, len(targets))
		for _, sb := range targets {
			pending = append(pending, s.retentionChecklist(ctx, sb))
		}
		return sandboxReleasePendingResp{Status: "confirmation_required", Released: false, PendingRelease: pending, Hint: retentionHint}, nil
	}
	views := make([]sandboxViewResp, 0, len(targets))
	all := true
	for _, sb := range targets {
		release := wf.SandboxRelease{Reason: "sandbox.release"}
		got := s.awaitSandbox(ctx, sb, wf.SandboxReleaseUpdate, releaseWait, []any{release}, func() error {
			return s.Temporal.SignalWorkflow(ctx, wf.SandboxWorkflowID(sb.UID), "", wf.SandboxReleaseSignal, release)
		})
		all = all && got.Status == models.SandboxTerminated
		views = append(views, sandboxView(got))
	}
	status := models.SandboxTerminated
	if !all {
		status = "release_pending"
	}
	return sandboxReleasedResp{Status: status, Released: true, Sandboxes: views}, nil
}

// releaseTargets are the sandboxes a release means: sandbox_uid, else every
// active one of experiment_id, else every active one of the project.
func (s *Service) releaseTargets(ctx context.Context, in sandboxArgs) ([]models.Sandbox, error) {
	if in.SandboxUID != "" {
		sb, err := s.pickSandbox(ctx, in)
		if err != nil {
			return nil, err
		}
		if !sb.Active() {
			return nil, nil
		}
		return []models.Sandbox{sb}, nil
	}
	return models.ListSandboxes(ctx, s.DB, in.ProjectID, in.ExperimentID, true)
}

// retentionChecklist lists what releasing sb would lose or leave behind:
// files not pulled in their current form, commands still running, and
// pulled objects that are not pinned.
func (s *Service) retentionChecklist(ctx context.Context, sb models.Sandbox) retentionChecklistResp {
	item := retentionChecklistResp{SandboxUID: sb.UID, SandboxID: sb.UID, Status: sb.Status, Workdir: sb.Workdir, ExpiresAt: sb.ExpiresAt}
	unpulled, runningCmds, unpinned := []unpulledOutputResp{}, []runningCommandResp{}, []unpinnedObjectResp{}
	pulls, err := models.Pulls(ctx, s.DB, sb.UID)
	if err != nil {
		item.Error = ptr(err.Error())
		return item
	}
	pulled := map[string]bool{}
	seen := map[string]bool{}
	for _, p := range pulls {
		pulled[p.Path+"\x00"+p.SHA256] = true
		if seen[p.ObjectID] {
			continue
		}
		seen[p.ObjectID] = true
		if o, err := models.GetObject(ctx, s.DB, sb.ProjectID, p.ObjectID); err == nil && !o.Pinned && o.Status == models.StorageAvailable {
			unpinned = append(unpinned, unpinnedObjectResp{ObjectID: o.ID, Name: o.Name, Path: p.Path, ExpiresAt: o.ExpiresAt})
		}
	}
	insp, err := s.reader(ctx, sb)
	var elsewhere *ToolError
	if errors.As(err, &elsewhere) {
		// Nothing could be checked: the checklist says so instead of
		// looking empty.
		item.OutputsUnchecked = &elsewhere.Message
	}
	if err == nil {
		files, err := insp.Files(ctx, sb.UID, checklistFiles)
		if err != nil {
			// Not "nothing to lose": say the outputs could not be checked.
			item.OutputsUnchecked = ptr(err.Error())
		}
		for _, f := range files {
			sum, size, err := insp.Digest(ctx, sb.UID, f, s.checklistMaxBytes())
			if err != nil {
				unpulled = append(unpulled, unpulledOutputResp{Path: f, Note: err.Error()})
				continue
			}
			if !pulled[path.Clean(f)+"\x00"+sum] {
				unpulled = append(unpulled, unpulledOutputResp{Path: f, SizeBytes: &size})
			}
		}
		runs, err := insp.Runs(ctx, sb.UID, 0)
		if err != nil {
			item.RunningCommandsUnchecked = ptr(err.Error())
		}
		for _, r := range runs {
			if r.Status == sandbox.RunRunning {
				runningCmds = append(runningCmds, runningCommandResp{Seq: r.Seq, Command: r.Command, StartedAt: r.StartedAt})
			}
		}
	}
	item.UnpulledOutputs, item.RunningCommands, item.UnpinnedStorage = &unpulled, &runningCmds, &unpinned
	return item
}

func (s *Service) checklistMaxBytes() int64 {
	if s.Config.MaxBodyBytes > 0 {
		return s.Config.MaxBodyBytes
	}
	return 64 << 20
}

// sandboxBlock is workflow.status_and_next's view of an experiment's
// active sandbox.
func (s *Service) sandboxBlock(ctx context.Context, experimentID string) sandboxBlockResp {
	if !s.Config.Features.Sandboxes {
		return sandboxBlockResp{Active: false}
	}
	sb, err := models.CurrentSandbox(ctx, s.DB, experimentID)
	if err != nil {
		return sandboxBlockResp{Active: false}
	}
	return sandboxBlockResp{Active: true, sandboxEndpointResp: &sandboxEndpointResp{SandboxUID: sb.UID, Status: sb.Status, SSHHost: sb.SSHHost,
		SSHPort: sb.SSHPort, SSHUser: sb.SSHUser, Workdir: sb.Workdir, ExpiresAt: sb.ExpiresAt}}
}
