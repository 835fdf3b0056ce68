package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// inspectPollTick is how often a runs long poll re-reads the runs.
const inspectPollTick = 200 * time.Millisecond

// maxInspectChunk bounds one chunk read, well under Temporal's payload
// limit.
const maxInspectChunk = 1 << 20

// InspectSandbox answers an inspection of a local sandbox held by this
// host: its runs (long-polled, heartbeating), its files, or one chunk of a
// file. A bad path answers a non-retryable typed error.
func (a *SandboxActivities) InspectSandbox(ctx context.Context, in wf.SandboxInspectRequest) (wf.SandboxInspectResult, error) {
	local, err := a.localInspector()
	if err != nil {
		return wf.SandboxInspectResult{}, err
	}
	switch in.Op {
	case wf.InspectRuns:
		runs, err := sandbox.WaitRuns(ctx, func() ([]sandbox.Run, error) {
			activity.RecordHeartbeat(ctx)
			return local.Runs(in.UID)
		}, in.Wait, inspectPollTick)
		if err != nil {
			return wf.SandboxInspectResult{}, inspectErr(err)
		}
		return wf.SandboxInspectResult{Runs: toInspectRuns(sandbox.TrimRuns(runs, in.OutputTail, in.OutputTotal))}, nil
	case wf.InspectFiles:
		files, err := local.Files(in.UID, max(in.MaxFiles, 1))
		return wf.SandboxInspectResult{Files: files}, inspectErr(err)
	case wf.InspectRead:
		if in.Length <= 0 || in.Length > maxInspectChunk {
			return wf.SandboxInspectResult{}, temporal.NewNonRetryableApplicationError("chunk length out of range", wf.InspectErrBadRequest, nil)
		}
		data, size, err := local.ReadChunk(in.UID, in.Path, in.Offset, in.Length)
		return wf.SandboxInspectResult{Data: data, Size: size}, inspectErr(err)
	case wf.InspectDigest:
		b, err := local.ReadFile(in.UID, in.Path, in.MaxBytes)
		if err != nil {
			return wf.SandboxInspectResult{}, inspectErr(err)
		}
		sum := sha256.Sum256(b)
		return wf.SandboxInspectResult{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))}, nil
	}
	return wf.SandboxInspectResult{}, temporal.NewNonRetryableApplicationError("unknown inspection "+in.Op, wf.InspectErrBadRequest, nil)
}

// localInspector is this host's local provider.
func (a *SandboxActivities) localInspector() (*sandbox.Local, error) {
	p, err := a.Providers.Get(sandbox.LocalName)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), wf.InspectErrBadRequest, err)
	}
	local, ok := p.(*sandbox.Local)
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError("the local provider is unavailable on this host", wf.InspectErrBadRequest, nil)
	}
	return local, nil
}

// inspectErr types the sandbox package's path errors for the caller.
func inspectErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sandbox.ErrPathOutside):
		return temporal.NewNonRetryableApplicationError(err.Error(), wf.InspectErrPathOutside, nil)
	case errors.Is(err, sandbox.ErrNotFound):
		return temporal.NewNonRetryableApplicationError(err.Error(), wf.InspectErrNotFound, nil)
	case errors.Is(err, sandbox.ErrTooLarge):
		return temporal.NewNonRetryableApplicationError(err.Error(), wf.InspectErrTooLarge, nil)
	}
	return err
}

// toInspectRuns converts runs to their message form.
func toInspectRuns(runs []sandbox.Run) []wf.SandboxInspectRun {
	out := make([]wf.SandboxInspectRun, len(runs))
	for i, r := range runs {
		out[i] = wf.SandboxInspectRun{Seq: r.Seq, Command: r.Command, Status: r.Status, StartedAt: r.StartedAt,
			EndedAt: r.EndedAt, ExitCode: r.ExitCode, Output: r.Output, Truncated: r.Truncated}
	}
	return out
}
