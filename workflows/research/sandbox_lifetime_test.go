package research

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// TestSandbox_ExtendsStopAtTheTotalLifetime: every extend is capped per
// call, and all of them together never move the limit past MaxLifetime
// after the start; the sandbox is torn down there.
func TestSandbox_ExtendsStopAtTheTotalLifetime(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.in.MaxLifetime = time.Hour
	h.provisions()
	h.destroys(0)
	for i := range 10 { // 10 × 30 min asked, 50 min left under the cap
		h.at(time.Duration(i+1)*time.Minute, func() { h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: 1800}) })
	}
	var mid SandboxState
	h.at(20*time.Minute, func() { mid = h.query() })
	st := h.run()
	capAt := sandboxT0.Add(time.Hour)
	if !mid.ExpiresAt.Equal(capAt) || !mid.LifetimeEndsAt.Equal(capAt) || mid.Extended != 50*time.Minute || mid.Revision != 10 {
		t.Fatalf("after extends: %+v, want expiry at the cap %v", mid, capAt)
	}
	if st.EndReason != SandboxEndExpired || !h.env.Now().Equal(capAt) {
		t.Fatalf("ended %+v at %v, want at %v", st, h.env.Now(), capAt)
	}
}

// TestSandbox_TimeLimitOverTheLifetimeIsCapped: a time limit past the cap
// expires at the cap.
func TestSandbox_TimeLimitOverTheLifetimeIsCapped(t *testing.T) {
	h := newSandboxHarness(t, 3*time.Hour)
	h.in.MaxLifetime = time.Hour
	h.provisions()
	h.destroys(0)
	if st := h.run(); st.EndReason != SandboxEndExpired || !h.env.Now().Equal(sandboxT0.Add(time.Hour)) {
		t.Fatalf("ended %+v at %v", st, h.env.Now())
	}
}

// TestSandbox_ManyExtendsContinueAsNewWithTheState: after
// SandboxContinueAfter signals the run continues as new (where ~5,000
// extends had hit Temporal's history limit, terminating the workflow
// without teardown); the next run resumes the running machine without
// provisioning it again, and tears it down at the carried expiry.
func TestSandbox_ManyExtendsContinueAsNewWithTheState(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.in.MaxLifetime = 48 * time.Hour
	h.provisions()
	for i := range SandboxContinueAfter {
		h.at(time.Minute+time.Duration(i)*time.Millisecond, func() { h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: 60}) })
	}
	h.env.ExecuteWorkflow(SandboxWorkflowName, h.in)
	var cont *workflow.ContinueAsNewError
	if err := h.env.GetWorkflowError(); !errors.As(err, &cont) {
		t.Fatalf("workflow ended with %v, want continue-as-new", err)
	}
	var next SandboxInput
	if err := converter.GetDefaultDataConverter().FromPayloads(cont.Input, &next); err != nil {
		t.Fatal(err)
	}
	r := next.Resume
	if r == nil || r.Status != SandboxRunning || r.Endpoint != h.ep || next.Port != h.ep.Port || r.Revision != SandboxContinueAfter ||
		r.Extended != time.Duration(SandboxContinueAfter)*time.Minute || !r.LifetimeEndsAt.Equal(sandboxT0.Add(48*time.Hour)) {
		t.Fatalf("carried input %+v resume %+v", next, r)
	}

	// The next run: no provisioning (the harness has no expectation for
	// it), a teardown at the carried expiry.
	h2 := newSandboxHarness(t, 10*time.Minute)
	h2.in = next
	h2.env.SetStartTime(sandboxT0.Add(time.Minute))
	h2.env.OnActivity(ProvisionSandboxActivity, mock.Anything, mock.Anything).Return(SandboxEndpoint{}, errors.New("must not provision")).Maybe()
	h2.destroys(0)
	st := h2.run()
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndExpired || !h2.env.Now().Equal(r.ExpiresAt) {
		t.Fatalf("resumed run ended %+v at %v, want at %v", st, h2.env.Now(), r.ExpiresAt)
	}
	if got := h2.statuses(); !equalStrings(got, []string{SandboxTerminated}) {
		t.Fatalf("resumed run mirrored %v", got)
	}
}

// TestSandbox_SignalsPendingAtContinueAsNewAreNotLost: signals delivered
// with the one that reaches SandboxContinueAfter are applied before the
// run would continue; a pending release tears the sandbox down.
func TestSandbox_SignalsPendingAtContinueAsNewAreNotLost(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.provisions()
	h.destroys(0)
	for i := range SandboxContinueAfter - 1 {
		h.at(time.Minute+time.Duration(i)*time.Millisecond, func() { h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: 60}) })
	}
	h.at(2*time.Minute, func() {
		h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: 60})
		h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: 60})
		h.env.SignalWorkflow(SandboxReleaseSignal, SandboxRelease{Reason: "done"})
	})
	st := h.run()
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndReleased || st.Revision != SandboxContinueAfter+2 {
		t.Fatalf("ended %+v", st)
	}
}
