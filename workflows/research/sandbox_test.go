package research

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

var sandboxT0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// sandboxHarness runs one sandbox workflow with mocked activities and
// keeps every mirror write in order.
type sandboxHarness struct {
	t    *testing.T
	env  *testsuite.TestWorkflowEnvironment
	in   SandboxInput
	ep   SandboxEndpoint
	mu   sync.Mutex
	recs []SandboxRecord
}

func newSandboxHarness(t *testing.T, limit time.Duration) *sandboxHarness {
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	h := &sandboxHarness{t: t, env: ts.NewTestWorkflowEnvironment(),
		in: SandboxInput{UID: "sbx_1", ProjectID: "prj_1", Provider: "local", InstanceType: "local-small", CPU: 1, MemoryMB: 1024,
			PublicKey: "ssh-ed25519 AAAA test", TimeLimit: limit},
		ep: SandboxEndpoint{Host: "127.0.0.1", Port: 40022, User: "sandbox", Workdir: "/tmp/sbx_1/work"}}
	h.env.SetStartTime(sandboxT0)
	h.env.RegisterWorkflowWithOptions(Sandbox, workflow.RegisterOptions{Name: SandboxWorkflowName})
	h.env.RegisterActivityWithOptions(func(context.Context, SandboxInput) (SandboxEndpoint, error) { return SandboxEndpoint{}, nil },
		activity.RegisterOptions{Name: ProvisionSandboxActivity})
	h.env.RegisterActivityWithOptions(func(context.Context, SandboxDestroy) error { return nil }, activity.RegisterOptions{Name: DestroySandboxActivity})
	h.env.RegisterActivityWithOptions(func(context.Context, SandboxRecord) error { return nil }, activity.RegisterOptions{Name: RecordSandboxActivity})
	h.env.OnActivity(RecordSandboxActivity, mock.Anything, mock.Anything).Return(func(_ context.Context, r SandboxRecord) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.recs = append(h.recs, r)
		return nil
	})
	return h
}

// provisions expects exactly one provisioning call with the input.
func (h *sandboxHarness) provisions() {
	h.env.OnActivity(ProvisionSandboxActivity, mock.Anything, h.in).Return(h.ep, nil).Once()
}

// destroys expects teardown of this sandbox to fail failures times, then succeed.
func (h *sandboxHarness) destroys(failures int) {
	want := SandboxDestroy{UID: h.in.UID, Provider: h.in.Provider}
	if failures > 0 {
		h.env.OnActivity(DestroySandboxActivity, mock.Anything, want).Return(errors.New("provider unreachable")).Times(failures)
	}
	h.env.OnActivity(DestroySandboxActivity, mock.Anything, want).Return(nil).Once()
}

// at queues a callback at offset from the start.
func (h *sandboxHarness) at(offset time.Duration, f func()) { h.env.RegisterDelayedCallback(f, offset) }

func (h *sandboxHarness) run() SandboxState {
	h.t.Helper()
	h.env.ExecuteWorkflow(SandboxWorkflowName, h.in)
	if !h.env.IsWorkflowCompleted() {
		h.t.Fatal("workflow did not complete")
	}
	if err := h.env.GetWorkflowError(); err != nil {
		h.t.Fatal(err)
	}
	var st SandboxState
	if err := h.env.GetWorkflowResult(&st); err != nil {
		h.t.Fatal(err)
	}
	h.env.AssertExpectations(h.t)
	return st
}

// statuses lists the mirrored statuses in order.
func (h *sandboxHarness) statuses() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.recs {
		if len(out) == 0 || out[len(out)-1] != r.Status {
			out = append(out, r.Status)
		}
	}
	return out
}

func (h *sandboxHarness) query() SandboxState {
	v, err := h.env.QueryWorkflow(SandboxStateQuery)
	if err != nil {
		h.t.Fatal(err)
	}
	var st SandboxState
	if err := v.Get(&st); err != nil {
		h.t.Fatal(err)
	}
	return st
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSandbox_TimeLimitExpiresAndTearsDown(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.provisions()
	h.destroys(0)
	var during SandboxState
	h.at(5*time.Minute, func() { during = h.query() })
	st := h.run()
	if during.Status != SandboxRunning || during.Endpoint != h.ep || !during.ExpiresAt.Equal(sandboxT0.Add(10*time.Minute)) {
		t.Fatalf("while running: %+v", during)
	}
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndExpired || h.env.Now().Sub(sandboxT0) != 10*time.Minute {
		t.Fatalf("ended %+v at %v", st, h.env.Now().Sub(sandboxT0))
	}
	if got := h.statuses(); !equalStrings(got, []string{SandboxProvisioning, SandboxRunning, SandboxTerminated}) {
		t.Fatalf("mirrored %v", got)
	}
}

func TestSandbox_ExtendMovesTheTimerAtMostThirtyMinutesPerCall(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.provisions()
	h.destroys(0)
	h.at(5*time.Minute, func() { h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{}) })              // default 1800 s
	h.at(6*time.Minute, func() { h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: 7200}) }) // capped at 30 min
	h.at(7*time.Minute, func() { h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: 60}) })
	var mid SandboxState
	h.at(8*time.Minute, func() { mid = h.query() })
	st := h.run()
	want := sandboxT0.Add(10*time.Minute + 30*time.Minute + 30*time.Minute + time.Minute)
	if !mid.ExpiresAt.Equal(want) || mid.Revision != 3 || mid.Extended != 61*time.Minute {
		t.Fatalf("after extends: %+v, want expiry %v", mid, want)
	}
	if st.EndReason != SandboxEndExpired || !h.env.Now().Equal(want) {
		t.Fatalf("ended %+v at %v, want %v", st, h.env.Now(), want)
	}
}

func TestSandbox_ReleaseTearsDownBeforeTheLimit(t *testing.T) {
	h := newSandboxHarness(t, time.Hour)
	h.provisions()
	h.destroys(0)
	h.at(3*time.Minute, func() { h.env.SignalWorkflow(SandboxReleaseSignal, SandboxRelease{Reason: "done"}) })
	st := h.run()
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndReleased || h.env.Now().Sub(sandboxT0) >= 4*time.Minute {
		t.Fatalf("ended %+v at %v", st, h.env.Now().Sub(sandboxT0))
	}
}

func TestSandbox_UnconfirmedTeardownIsCleanupPendingUntilItSucceeds(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.provisions()
	h.destroys(6) // four quick attempts fail, then the patient retries fail twice more
	st := h.run()
	if st.Status != SandboxTerminated {
		t.Fatalf("ended %+v", st)
	}
	if got := h.statuses(); !equalStrings(got, []string{SandboxProvisioning, SandboxRunning, SandboxCleanupPending, SandboxTerminated}) {
		t.Fatalf("mirrored %v", got)
	}
}

func TestSandbox_ProvisioningFailureFailsAndCleansUp(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.env.OnActivity(ProvisionSandboxActivity, mock.Anything, h.in).Return(SandboxEndpoint{}, errors.New("no capacity")).Times(5)
	h.destroys(0)
	st := h.run()
	if st.Status != SandboxFailed || st.EndReason != SandboxEndFailed || st.Error == "" {
		t.Fatalf("ended %+v", st)
	}
	if got := h.statuses(); !equalStrings(got, []string{SandboxProvisioning, SandboxFailed}) {
		t.Fatalf("mirrored %v", got)
	}
}

func TestExtendBy_DefaultsAndCaps(t *testing.T) {
	for _, tc := range []struct {
		seconds int
		want    time.Duration
	}{{0, 30 * time.Minute}, {-5, 30 * time.Minute}, {60, time.Minute}, {1800, 30 * time.Minute}, {1801, 30 * time.Minute}, {86400, 30 * time.Minute}} {
		if got := ExtendBy(tc.seconds); got != tc.want {
			t.Errorf("ExtendBy(%d) = %v, want %v", tc.seconds, got, tc.want)
		}
	}
}
