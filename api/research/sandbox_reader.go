package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// Bounds of reading a sandbox on another host through Temporal.
const (
	// remoteChunk is one read's size, well under Temporal's payload limit.
	remoteChunk = 1 << 20
	// remoteRunsBudget bounds the run output one remote answer carries;
	// the newest output is kept.
	remoteRunsBudget = 1 << 20
)

// sandboxReader reads what happened inside a sandbox, wherever it lives.
type sandboxReader interface {
	// Runs answers the runs, oldest first, once none is running or wait
	// has passed.
	Runs(ctx context.Context, uid string, wait time.Duration) ([]sandbox.Run, error)
	// ReadFile answers the bytes of rel in the working directory.
	ReadFile(ctx context.Context, uid, rel string, max int64) ([]byte, error)
	// Digest answers the hex sha256 and size of rel.
	Digest(ctx context.Context, uid, rel string, max int64) (string, int64, error)
	// Files lists regular files in the working directory.
	Files(ctx context.Context, uid string, max int) ([]string, error)
}

// localReader reads a sandbox this process's provider holds.
type localReader struct{ insp sandbox.Inspector }

func (l localReader) Runs(ctx context.Context, uid string, wait time.Duration) ([]sandbox.Run, error) {
	return sandbox.WaitRuns(ctx, func() ([]sandbox.Run, error) { return l.insp.Runs(uid) }, wait, runsPollTick)
}

func (l localReader) ReadFile(_ context.Context, uid, rel string, max int64) ([]byte, error) {
	return l.insp.ReadFile(uid, rel, max)
}

func (l localReader) Digest(ctx context.Context, uid, rel string, max int64) (string, int64, error) {
	b, err := l.ReadFile(ctx, uid, rel, max)
	if err != nil {
		return "", 0, err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), int64(len(b)), nil
}

func (l localReader) Files(_ context.Context, uid string, max int) ([]string, error) {
	return l.insp.Files(uid, max)
}

// inspectFunc answers one inspection of a sandbox that lives elsewhere.
type inspectFunc func(context.Context, wf.SandboxInspectRequest) (wf.SandboxInspectResult, error)

// remoteReader reads a sandbox this process does not hold through inspect:
// a local sandbox held by a worker on another host (through that host's
// task queue), or a kubernetes sandbox whose Pod runs the sandbox agent.
type remoteReader struct{ inspect inspectFunc }

// remoteFor answers a reader for sb from what its workflow recorded: the
// sandbox agent of its Pod, or the host queue of the worker holding it;
// ok=false when there is neither. An ended sandbox is read through the
// host queue its row mirrors, without its workflow, which Temporal purges
// once the namespace's retention passed.
func (s *Service) remoteFor(ctx context.Context, sb models.Sandbox) (remoteReader, bool) {
	if s.Temporal == nil {
		return remoteReader{}, false
	}
	if !sb.Active() && sb.HostQueue != "" {
		return remoteReader{inspect: s.hostInspect(sb.HostQueue)}, true
	}
	v, err := s.Temporal.QueryWorkflow(ctx, wf.SandboxWorkflowID(sb.UID), "", wf.SandboxStateQuery)
	var st wf.SandboxState
	if err != nil || v.Get(&st) != nil {
		return remoteReader{}, false
	}
	switch ep := st.Endpoint; {
	case ep.InspectURL != "" && !sb.Active():
		// The Pod and its runs are gone; its address may be another Pod's.
		return remoteReader{}, false
	case ep.InspectURL != "" && ep.InspectToken != "":
		cl := agent.Client{URL: ep.InspectURL, Token: ep.InspectToken}
		return remoteReader{inspect: func(ctx context.Context, in wf.SandboxInspectRequest) (wf.SandboxInspectResult, error) {
			out, err := cl.Inspect(ctx, in)
			if err != nil && agent.ErrorType(err) == "" && ctx.Err() == nil {
				return out, toolErr("unavailable", "/sandbox_uid", "the sandbox agent of %s did not answer: %v", sb.UID, err)
			}
			return out, err
		}}, true
	case ep.HostQueue != "":
		return remoteReader{inspect: s.hostInspect(ep.HostQueue)}, true
	}
	return remoteReader{}, false
}

// hostInspect runs each inspection as a short SandboxInspect workflow
// whose activity runs on hostQueue, mapping its typed errors back to the
// sandbox package's.
func (s *Service) hostInspect(hostQueue string) inspectFunc {
	return func(ctx context.Context, in wf.SandboxInspectRequest) (wf.SandboxInspectResult, error) {
		in.HostQueue = hostQueue
		run, err := s.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID:                       wf.SandboxInspectWorkflowID(in.UID, models.NewID("")),
			TaskQueue:                s.Config.TaskQueue,
			WorkflowExecutionTimeout: in.Wait + 2*time.Minute,
		}, wf.SandboxInspectWorkflowName, in)
		var out wf.SandboxInspectResult
		if err == nil {
			err = run.Get(ctx, &out)
		}
		var app *temporal.ApplicationError
		var timeout *temporal.TimeoutError
		switch {
		case err == nil:
			return out, nil
		case errors.As(err, &app) && app.Type() != "":
			return out, agent.FromType(app.Type(), app.Message())
		case errors.As(err, &timeout) && timeout.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
			return out, toolErr("unavailable", "/sandbox_uid", "the worker host holding sandbox %s (task queue %s) did not answer within %s; "+
				"is its worker running?", in.UID, hostQueue, wf.SandboxInspectPickup)
		case ctx.Err() != nil:
			return out, ctx.Err()
		}
		return out, toolErr("unavailable", "/sandbox_uid", "could not read sandbox %s on its worker host (task queue %s): %v", in.UID, hostQueue, err)
	}
}

func (r remoteReader) Runs(ctx context.Context, uid string, wait time.Duration) ([]sandbox.Run, error) {
	out, err := r.inspect(ctx, wf.SandboxInspectRequest{UID: uid, Op: wf.InspectRuns, Wait: wait, OutputTotal: remoteRunsBudget})
	if err != nil {
		return nil, err
	}
	return agent.FromMessages(out.Runs), nil
}

// ReadFile copies rel chunk by chunk; a file whose size changes while it
// is copied is refused rather than stored torn.
func (r remoteReader) ReadFile(ctx context.Context, uid, rel string, max int64) ([]byte, error) {
	var data []byte
	size := int64(-1)
	for off := int64(0); size < 0 || off < size; {
		out, err := r.inspect(ctx, wf.SandboxInspectRequest{UID: uid, Op: wf.InspectRead, Path: rel, Offset: off, Length: remoteChunk})
		switch {
		case err != nil:
			return nil, err
		case out.Size > max:
			return nil, fmt.Errorf("%w: %q is %d bytes, over the %d byte limit", sandbox.ErrTooLarge, rel, out.Size, max)
		case size >= 0 && out.Size != size, len(out.Data) == 0 && off < out.Size:
			return nil, fmt.Errorf("sandbox: %q changed while it was copied; pull it again once it is written", rel)
		}
		size = out.Size
		data, off = append(data, out.Data...), off+int64(len(out.Data))
	}
	return data, nil
}

func (r remoteReader) Digest(ctx context.Context, uid, rel string, max int64) (string, int64, error) {
	out, err := r.inspect(ctx, wf.SandboxInspectRequest{UID: uid, Op: wf.InspectDigest, Path: rel, MaxBytes: max})
	return out.SHA256, out.Size, err
}

func (r remoteReader) Files(ctx context.Context, uid string, max int) ([]string, error) {
	out, err := r.inspect(ctx, wf.SandboxInspectRequest{UID: uid, Op: wf.InspectFiles, MaxFiles: max})
	return out.Files, err
}
