package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/inspect"
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
func Answer(ctx context.Context, l *sandbox.Local, in inspect.Request, beat func()) (inspect.Result, error) {
	if beat == nil {
		beat = func() {}
	}
	beat()
	switch in.Op {
	case inspect.OpRuns:
		runs, err := sandbox.WaitRuns(ctx, func() ([]sandbox.Run, error) {
			beat()
			return l.Runs(in.UID)
		}, in.Wait, PollTick)
		if err != nil {
			return inspect.Result{}, err
		}
		return inspect.Result{Runs: ToMessages(sandbox.TrimRuns(runs, in.OutputTail, in.OutputTotal))}, nil
	case inspect.OpFiles:
		files, err := l.Files(in.UID, max(in.MaxFiles, 1))
		return inspect.Result{Files: files}, err
	case inspect.OpRead:
		if in.Length <= 0 || in.Length > MaxChunk {
			return inspect.Result{}, fmt.Errorf("%w: chunk length %d not in 1..%d", ErrBadRequest, in.Length, MaxChunk)
		}
		data, size, err := l.ReadChunk(in.UID, in.Path, in.Offset, in.Length)
		return inspect.Result{Data: data, Size: size}, err
	case inspect.OpDigest:
		sum, size, err := l.DigestFile(in.UID, in.Path, in.MaxBytes)
		if err != nil {
			return inspect.Result{}, err
		}
		return inspect.Result{SHA256: sum, Size: size}, nil
	}
	return inspect.Result{}, fmt.Errorf("%w: unknown operation %q", ErrBadRequest, in.Op)
}

// ToMessages converts runs to their message form.
func ToMessages(runs []sandbox.Run) []inspect.Run {
	out := make([]inspect.Run, len(runs))
	for i, r := range runs {
		out[i] = inspect.Run{Seq: r.Seq, Command: r.Command, Status: r.Status, StartedAt: r.StartedAt,
			EndedAt: r.EndedAt, ExitCode: r.ExitCode, Output: r.Output, Truncated: r.Truncated}
	}
	return out
}

// FromMessages converts message runs back.
func FromMessages(in []inspect.Run) []sandbox.Run {
	out := make([]sandbox.Run, len(in))
	for i, x := range in {
		out[i] = sandbox.Run{Seq: x.Seq, Command: x.Command, Status: x.Status, StartedAt: x.StartedAt, EndedAt: x.EndedAt,
			ExitCode: x.ExitCode, Output: x.Output, Truncated: x.Truncated}
	}
	return out
}

// ErrorType is the wire name of an inspection error (one of inspect's
// Err* types), "" for errors without one.
func ErrorType(err error) string {
	switch {
	case errors.Is(err, sandbox.ErrPathOutside):
		return inspect.ErrPathOutside
	case errors.Is(err, sandbox.ErrNotFound):
		return inspect.ErrNotFound
	case errors.Is(err, sandbox.ErrTooLarge):
		return inspect.ErrTooLarge
	case errors.Is(err, ErrBadRequest):
		return inspect.ErrBadRequest
	}
	return ""
}

// FromType is the typed error of wire name typ carrying msg (msg alone
// for an unknown type).
func FromType(typ, msg string) error {
	switch typ {
	case inspect.ErrPathOutside:
		return fmt.Errorf("%w: %s", sandbox.ErrPathOutside, msg)
	case inspect.ErrNotFound:
		return fmt.Errorf("%w: %s", sandbox.ErrNotFound, msg)
	case inspect.ErrTooLarge:
		return fmt.Errorf("%w: %s", sandbox.ErrTooLarge, msg)
	case inspect.ErrBadRequest:
		return fmt.Errorf("%w: %s", ErrBadRequest, msg)
	}
	return errors.New(msg)
}
