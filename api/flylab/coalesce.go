package flylab

import (
	"context"
	"errors"
	"sync"

	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// coalescer joins concurrent copies of one idempotent mutation (same
// session, tool, operation_id and input) arriving at this API process:
// the first copy sends the Update, the others wait for its outcome and
// answer it as an idempotent replay. Without it, a burst of retries of
// one call becomes a burst of Updates on one workflow, which Temporal
// caps per workflow; the workflow's own operation_id check stays the
// authority across processes.
type coalescer struct {
	mu    sync.Mutex
	calls map[string]*flight
}

// flight is one Update in progress and, once done closes, its result.
type flight struct {
	done    chan struct{}
	out     wf.ToolOutcome
	err     error
	joiners int // copies waiting on this flight (guarded by coalescer.mu)
}

// do runs send once per key at a time. A copy that joined a flight gets
// its outcome marked as a replay; if the flight failed only because its
// sender's context ended, the joiner sends its own.
func (c *coalescer) do(ctx context.Context, key string, send func() (wf.ToolOutcome, error)) (wf.ToolOutcome, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]*flight{}
	}
	if f, ok := c.calls[key]; ok {
		f.joiners++
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return wf.ToolOutcome{}, ctx.Err()
		}
		if ctx.Err() == nil && (f.err != nil && (errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)) ||
			f.err == nil && f.out.Failure != nil && f.out.Failure.Code == wf.CodeAborted) {
			// The first copy's caller cancelled it; this caller did not.
			return send()
		}
		out := f.out
		if f.err == nil && out.Failure == nil {
			out.Replay = true
			out.CreatedArtifactIDs = []string{}
		}
		return out, f.err
	}
	f := &flight{done: make(chan struct{})}
	c.calls[key] = f
	c.mu.Unlock()

	f.out, f.err = send()
	c.mu.Lock()
	delete(c.calls, key)
	c.mu.Unlock()
	close(f.done)
	return f.out, f.err
}

// joined is how many copies wait on key's flight now (0 when none flies).
func (c *coalescer) joined(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.calls[key]; ok {
		return f.joiners
	}
	return 0
}
