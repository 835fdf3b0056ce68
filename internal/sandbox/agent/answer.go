package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// PollTick is how often a runs long poll re-reads the runs.
const PollTick = 200 * time.Millisecond

// MaxChunk bounds one chunk read, well under Temporal's payload limit.
const MaxChunk = 1 << 20

// ErrBadRequest is an inspection that names no known operation or an
// out-of-range chunk.
var ErrBadRequest = errors.New("sandbox agent: bad inspection request")

// Answer answers one inspection of sandbox in.UID held by l: its runs
// (long-polled up to in.Wait, calling beat on every read), its files, one
// chunk of a file, or a file's digest (each bounded, so one beat at the
// start covers it). Path errors are the sandbox package's typed errors.
func Answer(ctx context.Context, l *sandbox.Local, in wf.SandboxInspectRequest, beat func()) (wf.SandboxInspectResult, error) {
	if beat == nil {
		beat = func() {}
	}
	beat()
	switch in.Op {
	case wf.InspectRuns:
		runs, err := sandbox.WaitRuns(ctx, func() ([]sandbox.Run, error) {
			beat()
			return l.Runs(in.UID)
		}, in.Wait, PollTick)
		if err != nil {
			return wf.SandboxInspectResult{}, err
		}
		return wf.SandboxInspectResult{Runs: ToMessages(sandbox.TrimRuns(runs, in.OutputTail, in.OutputTotal))}, nil
	case wf.InspectFiles:
		files, err := l.Files(in.UID, max(in.MaxFiles, 1))
		return wf.SandboxInspectResult{Files: files}, err
	case wf.InspectRead:
		if in.Length <= 0 || in.Length > MaxChunk {
			return wf.SandboxInspectResult{}, fmt.Errorf("%w: chunk length %d not in 1..%d", ErrBadRequest, in.Length, MaxChunk)
		}
		data, size, err := l.ReadChunk(in.UID, in.Path, in.Offset, in.Length)
		return wf.SandboxInspectResult{Data: data, Size: size}, err
	case wf.InspectDigest:
		sum, size, err := l.DigestFile(in.UID, in.Path, in.MaxBytes)
		if err != nil {
			return wf.SandboxInspectResult{}, err
		}
		return wf.SandboxInspectResult{SHA256: sum, Size: size}, nil
	}
	return wf.SandboxInspectResult{}, fmt.Errorf("%w: unknown operation %q", ErrBadRequest, in.Op)
}

// ToMessages converts runs to their message form.
func ToMessages(runs []sandbox.Run) []wf.SandboxInspectRun {
	out := make([]wf.SandboxInspectRun, len(runs))
	for i, r := range runs {
		out[i] = wf.SandboxInspectRun{Seq: r.Seq, Command: r.Command, Status: r.Status, StartedAt: r.StartedAt,
			EndedAt: r.EndedAt, ExitCode: r.ExitCode, Output: r.Output, Truncated: r.Truncated}
	}
	return out
}

// FromMessages converts message runs back.
func FromMessages(in []wf.SandboxInspectRun) []sandbox.Run {
	out := make([]sandbox.Run, len(in))
	for i, x := range in {
		out[i] = sandbox.Run{Seq: x.Seq, Command: x.Command, Status: x.Status, StartedAt: x.StartedAt, EndedAt: x.EndedAt,
			ExitCode: x.ExitCode, Output: x.Output, Truncated: x.Truncated}
	}
	return out
}

// ErrorType is the wire name of an inspection error (the workflow's
// InspectErr* types), "" for errors without one.
func ErrorType(err error) string {
	switch {
	case errors.Is(err, sandbox.ErrPathOutside):
		return wf.InspectErrPathOutside
	case errors.Is(err, sandbox.ErrNotFound):
		return wf.InspectErrNotFound
	case errors.Is(err, sandbox.ErrTooLarge):
		return wf.InspectErrTooLarge
	case errors.Is(err, ErrBadRequest):
		return wf.InspectErrBadRequest
	}
	return ""
}

// FromType is the typed error of wire name typ carrying msg (msg alone
// for an unknown type).
func FromType(typ, msg string) error {
	switch typ {
	case wf.InspectErrPathOutside:
		return fmt.Errorf("%w: %s", sandbox.ErrPathOutside, msg)
	case wf.InspectErrNotFound:
		return fmt.Errorf("%w: %s", sandbox.ErrNotFound, msg)
	case wf.InspectErrTooLarge:
		return fmt.Errorf("%w: %s", sandbox.ErrTooLarge, msg)
	case wf.InspectErrBadRequest:
		return fmt.Errorf("%w: %s", ErrBadRequest, msg)
	}
	return errors.New(msg)
}
