package temporalerr

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
)

// scripted answers its errs in turn, then the value.
type scripted struct {
	errs  []error
	calls int
}

func (s *scripted) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	s.calls++
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return nil, err
	}
	return answer(7), nil
}

// answer is an encoded query result holding one int.
type answer int

func (a answer) HasValue() bool { return true }

func (a answer) Get(valuePtr any) error {
	*valuePtr.(*int) = int(a)
	return nil
}

func TestQuery_RetriesTransientFailuresThenAnswers(t *testing.T) {
	q := &scripted{errs: []error{serviceerror.NewUnavailable("down"), serviceerror.NewDeadlineExceeded("worker lost")}}
	var out int
	err := Query(context.Background(), q, "wf", "state", &out, Backoff{Budget: 5 * time.Second, First: time.Millisecond, Max: 2 * time.Millisecond})
	if err != nil || out != 7 || q.calls != 3 {
		t.Fatalf("got %d after %d calls (%v), want 7 after 3", out, q.calls, err)
	}
}

// A worker killed as its poll took the query makes matching answer that
// poll's cancellation; the next attempt reaches a live worker.
func TestQuery_RetriesAQueryTheServerCancelledWithADeadPoller(t *testing.T) {
	q := &scripted{errs: []error{serviceerror.NewCanceled("context canceled")}}
	var out int
	err := Query(context.Background(), q, "wf", "state", &out, Backoff{Budget: 5 * time.Second, First: time.Millisecond, Max: time.Millisecond})
	if err != nil || out != 7 || q.calls != 2 {
		t.Fatalf("got %d after %d calls (%v), want 7 after 2", out, q.calls, err)
	}
}

// The caller's own cancellation ends the read at once.
func TestQuery_TheCallersCancellationIsNotRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := &scripted{errs: []error{serviceerror.NewCanceled("context canceled"), serviceerror.NewCanceled("context canceled")}}
	if err := Query(ctx, q, "wf", "state", new(int), Backoff{Budget: 5 * time.Second, First: time.Millisecond, Max: time.Millisecond}); err == nil || q.calls != 1 {
		t.Fatalf("a cancelled caller: %v after %d calls, want an error after 1", err, q.calls)
	}
}

func TestQuery_AnAnswerIsNotRetriedAndASpentBudgetSaysSo(t *testing.T) {
	gone := &scripted{errs: []error{serviceerror.NewNotFound("purged")}}
	var nf *serviceerror.NotFound
	if err := Query(context.Background(), gone, "wf", "state", new(int), Backoff{Budget: time.Second, First: time.Millisecond, Max: time.Millisecond}); !errors.As(err, &nf) || gone.calls != 1 {
		t.Fatalf("NotFound: %v after %d calls", err, gone.calls)
	}
	down := &scripted{errs: make([]error, 1000)}
	for i := range down.errs {
		down.errs[i] = serviceerror.NewUnavailable("down")
	}
	err := Query(context.Background(), down, "wf", "state", new(int), Backoff{Budget: 50 * time.Millisecond, First: 10 * time.Millisecond, Max: 10 * time.Millisecond})
	var un *serviceerror.Unavailable
	if !errors.Is(err, ErrBudgetSpent) || !errors.As(err, &un) {
		t.Fatalf("a spent budget answered %v", err)
	}
}
