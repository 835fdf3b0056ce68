package research

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
	// Open streams the bytes of rel in the working directory, refusing a
	// file over max; a bad path fails here, not at the first read.
	Open(ctx context.Context, uid, rel string, max int64) (io.ReadCloser, error)
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

// streamer is what the local provider offers beyond sandbox.Inspector:
// files streamed and hashed without holding them.
type streamer interface {
	OpenFile(uid, rel string, max int64) (io.ReadCloser, int64, error)
	DigestFile(uid, rel string, max int64) (string, int64, error)
}

func (l localReader) Open(_ context.Context, uid, rel string, max int64) (io.ReadCloser, error) {
	if st, ok := l.insp.(streamer); ok {
		rc, _, err := st.OpenFile(uid, rel, max)
		return rc, err
	}
	b, err := l.insp.ReadFile(uid, rel, max)
	return io.NopCloser(bytes.NewReader(b)), err
}

func (l localReader) Digest(ctx context.Context, uid, rel string, max int64) (string, int64, error) {
	if st, ok := l.insp.(streamer); ok {
		return st.DigestFile(uid, rel, max)
	}
	b, err := l.insp.ReadFile(uid, rel, max)
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
	case ep.InspectURL != "" && inspectToken(sb, ep) != "":
		cl := agent.Client{URL: ep.InspectURL, Token: inspectToken(sb, ep)}
		return remoteReader{inspect: func(ctx context.Context, in wf.SandboxInspectRequest) (wf.SandboxInspectResult, error) {
			out, err := cl.Inspect(ctx, in)
			if err != nil && agent.ErrorType(err) == "" && ctx.Err() == nil {
				return out, toolErr(CodeUnavailable, "/sandbox_uid", "the sandbox agent of %s did not answer: %v", sb.UID, err)
			}
			return out, err
		}}, true
	case ep.HostQueue != "":
		return remoteReader{inspect: s.hostInspect(ep.HostQueue)}, true
	}
	return remoteReader{}, false
}

// inspectToken is the bearer token of sb's Pod agent: the row's, or, for a
// sandbox from before tokens left history, the one its workflow recorded.
func inspectToken(sb models.Sandbox, ep wf.SandboxEndpoint) string {
	if sb.InspectToken != "" {
		return sb.InspectToken
	}
	return ep.InspectToken
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
			return out, toolErr(CodeUnavailable, "/sandbox_uid", "the worker host holding sandbox %s (task queue %s) did not answer within %s; "+
				"is its worker running?", in.UID, hostQueue, wf.SandboxInspectPickup)
		case ctx.Err() != nil:
			return out, ctx.Err()
		}
		return out, toolErr(CodeUnavailable, "/sandbox_uid", "could not read sandbox %s on its worker host (task queue %s): %v", in.UID, hostQueue, err)
	}
}

func (r remoteReader) Runs(ctx context.Context, uid string, wait time.Duration) ([]sandbox.Run, error) {
	out, err := r.inspect(ctx, wf.SandboxInspectRequest{UID: uid, Op: wf.InspectRuns, Wait: wait, OutputTotal: remoteRunsBudget})
	if err != nil {
		return nil, err
	}
	return agent.FromMessages(out.Runs), nil
}

// Open copies rel chunk by chunk as it is read, holding one chunk at a
// time; a file whose size changes while it is copied fails the read
// rather than being stored torn. The first chunk is fetched here, so a bad
// path or a file over max fails Open.
func (r remoteReader) Open(ctx context.Context, uid, rel string, max int64) (io.ReadCloser, error) {
	c := &chunkReader{ctx: ctx, inspect: r.inspect, uid: uid, rel: rel, size: -1}
	if err := c.fetch(); err != nil {
		return nil, err
	}
	if c.size > max {
		return nil, fmt.Errorf("%w: %q is %d bytes, over the %d byte limit", sandbox.ErrTooLarge, rel, c.size, max)
	}
	return c, nil
}

// chunkReader reads a remote file one inspection (remoteChunk bytes) at a
// time.
type chunkReader struct {
	ctx     context.Context
	inspect inspectFunc
	uid     string
	rel     string
	off     int64 // bytes fetched so far
	size    int64 // the file's size at the first chunk (-1 before it)
	buf     []byte
}

func (c *chunkReader) fetch() error {
	out, err := c.inspect(c.ctx, wf.SandboxInspectRequest{UID: c.uid, Op: wf.InspectRead, Path: c.rel, Offset: c.off, Length: remoteChunk})
	switch {
	case err != nil:
		return err
	case c.size >= 0 && out.Size != c.size, len(out.Data) == 0 && c.off < out.Size:
		return fmt.Errorf("sandbox: %q changed while it was copied; pull it again once it is written", c.rel)
	}
	c.size, c.buf, c.off = out.Size, out.Data, c.off+int64(len(out.Data))
	return nil
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.off >= c.size {
			return 0, io.EOF
		}
		if err := c.fetch(); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *chunkReader) Close() error { c.buf = nil; return nil }

func (r remoteReader) Digest(ctx context.Context, uid, rel string, max int64) (string, int64, error) {
	out, err := r.inspect(ctx, wf.SandboxInspectRequest{UID: uid, Op: wf.InspectDigest, Path: rel, MaxBytes: max})
	return out.SHA256, out.Size, err
}

func (r remoteReader) Files(ctx context.Context, uid string, max int) ([]string, error) {
	out, err := r.inspect(ctx, wf.SandboxInspectRequest{UID: uid, Op: wf.InspectFiles, MaxFiles: max})
	return out.Files, err
}
