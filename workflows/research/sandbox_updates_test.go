package research

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// sandboxUpdate sends update name with id and args and hands its answer
// (or rejection) to got.
func (h *sandboxHarness) update(name, id string, got func(SandboxState, error), args ...any) {
	h.env.UpdateWorkflow(name, id, &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { got(SandboxState{}, err) },
		OnComplete: func(v any, err error) {
			st, _ := v.(SandboxState)
			got(st, err)
		},
	}, args...)
}

// TestSandboxRelease_AnswersOnceTheEndIsRecorded: the release Update is
// answered with the terminated state after the row says terminated, so
// the api reads the row it answers with; a second release while the
// first runs answers the same and releases once; a release without a reason is
// refused by the validator and changes nothing.
func TestSandboxRelease_AnswersOnceTheEndIsRecorded(t *testing.T) {
	h := newSandboxHarness(t, time.Hour)
	h.provisions()
	h.destroys(0)
	var answers []SandboxState
	h.at(time.Minute, func() {
		h.update(SandboxReleaseUpdate, "bad", func(_ SandboxState, err error) {
			var ae *temporal.ApplicationError
			if !errors.As(err, &ae) || ae.Type() != ErrTypeInvalidInput {
				t.Errorf("release without a reason: %v, want %s", err, ErrTypeInvalidInput)
			}
		}, SandboxRelease{})
	})
	h.at(2*time.Minute, func() {
		recorded := func(st SandboxState, err error) {
			if err != nil {
				t.Errorf("release: %v", err)
			}
			h.mu.Lock()
			last := h.recs[len(h.recs)-1]
			h.mu.Unlock()
			if last.Status != SandboxTerminated {
				t.Errorf("release answered before the row was terminated: last record %+v", last)
			}
			answers = append(answers, st)
		}
		h.update(SandboxReleaseUpdate, "release", recorded, SandboxRelease{Reason: "sandbox.release"})
		h.update(SandboxReleaseUpdate, "release-from-another-replica", recorded, SandboxRelease{Reason: "sandbox.release"})
	})
	st := h.run()
	if len(answers) != 2 || answers[0].Status != SandboxTerminated || answers[0].EndReason != SandboxEndReleased || answers[1].Revision != answers[0].Revision {
		t.Fatalf("answers %+v", answers)
	}
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndReleased || st.Revision != 1 {
		t.Fatalf("final %+v: want one release", st)
	}
}

// TestSandboxProvisioned_AnswersTheProvisionedState: the request's Update
// is answered once the machine is up and its row says running.
func TestSandboxProvisioned_AnswersTheProvisionedState(t *testing.T) {
	h := newSandboxHarness(t, time.Hour)
	h.provisions()
	h.destroys(0)
	var got SandboxState
	h.at(0, func() {
		h.update(SandboxProvisionedUpdate, "up", func(st SandboxState, err error) {
			if err != nil {
				t.Errorf("provisioned: %v", err)
			}
			got = st
		})
	})
	st := h.run()
	if got.Status != SandboxRunning || got.Endpoint != h.ep {
		t.Fatalf("provisioned answered %+v, want running at %+v", got, h.ep)
	}
	if st.EndReason != SandboxEndExpired {
		t.Fatalf("final %+v", st)
	}
}

// extendAnswer is what one SandboxExtendUpdate answered.
type extendAnswer struct {
	st  SandboxState
	err error
}

// extends sends SandboxExtendUpdate with id and seconds at offset and
// records its answer in got.
func (h *sandboxHarness) extends(offset time.Duration, id string, seconds int, got *extendAnswer) {
	h.at(offset, func() {
		h.update(SandboxExtendUpdate, id, func(st SandboxState, err error) { *got = extendAnswer{st, err} }, SandboxExtend{Seconds: seconds})
	})
}

// refusedAs fails t unless err is a non-retryable ApplicationError of type typ.
func refusedAs(t *testing.T, what string, err error, typ string) {
	t.Helper()
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != typ || !ae.NonRetryable() {
		t.Errorf("%s: %v, want a non-retryable %s", what, err, typ)
	}
}

// TestSandboxExtend_UpdateAnswersTheLimitItApplied: the extend Update
// answers the state with its extension applied and really moves the
// timer (the sandbox outlives its first limit); the same Update ID sent
// again is applied once; seconds outside 1..1800 are refused by the
// validator and change nothing.
func TestSandboxExtend_UpdateAnswersTheLimitItApplied(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.provisions()
	h.destroys(0)
	var first, again, zero, over extendAnswer
	h.extends(5*time.Minute, "sandbox-extend/sbx_1/r0/1800", 1800, &first)
	h.extends(6*time.Minute, "sandbox-extend/sbx_1/r0/1800", 1800, &again)
	h.extends(7*time.Minute, "zero", 0, &zero)
	h.extends(7*time.Minute, "over", 1801, &over)
	var mid SandboxState
	h.at(8*time.Minute, func() { mid = h.query() })
	st := h.run()
	want := sandboxT0.Add(40 * time.Minute)
	if first.err != nil || !first.st.ExpiresAt.Equal(want) || first.st.Revision != 1 || first.st.Extended != 30*time.Minute || first.st.Status != SandboxRunning {
		t.Fatalf("extend answered %+v, want expiry %v at revision 1", first, want)
	}
	if again.err != nil || again.st.Revision != 1 || !again.st.ExpiresAt.Equal(want) {
		t.Fatalf("the repeated Update ID answered %+v, want the first answer", again)
	}
	refusedAs(t, "seconds 0", zero.err, ErrTypeInvalidInput)
	refusedAs(t, "seconds 1801", over.err, ErrTypeInvalidInput)
	if mid.Revision != 1 || !mid.ExpiresAt.Equal(want) {
		t.Fatalf("after the extends: %+v, want one extension", mid)
	}
	if st.EndReason != SandboxEndExpired || !h.env.Now().Equal(want) {
		t.Fatalf("ended %+v at %v, want at %v", st, h.env.Now(), want)
	}
}

// TestSandboxExtend_UpdateMovesTheTimerAsTheSignalDoes: the same extends
// sent as Updates and as signals leave the same state, mirror the same
// rows and end at the same time.
func TestSandboxExtend_UpdateMovesTheTimerAsTheSignalDoes(t *testing.T) {
	asks := []struct {
		at      time.Duration
		seconds int
	}{{5 * time.Minute, 1800}, {6 * time.Minute, 1800}, {7 * time.Minute, 60}}
	run := func(send func(h *sandboxHarness, i, seconds int)) (*sandboxHarness, SandboxState, SandboxState) {
		h := newSandboxHarness(t, 10*time.Minute)
		h.provisions()
		h.destroys(0)
		for i, a := range asks {
			h.at(a.at, func() { send(h, i, a.seconds) })
		}
		var mid SandboxState
		h.at(8*time.Minute, func() { mid = h.query() })
		return h, mid, h.run()
	}
	hs, midS, endS := run(func(h *sandboxHarness, _, seconds int) {
		h.env.SignalWorkflow(SandboxExtendSignal, SandboxExtend{Seconds: seconds})
	})
	endAtS := hs.env.Now()
	hu, midU, endU := run(func(h *sandboxHarness, i, seconds int) {
		h.update(SandboxExtendUpdate, fmt.Sprint("extend-", i), func(_ SandboxState, err error) {
			if err != nil {
				t.Errorf("extend %d: %v", i, err)
			}
		}, SandboxExtend{Seconds: seconds})
	})
	if midU != midS || endU != endS || !hu.env.Now().Equal(endAtS) {
		t.Fatalf("Updates: mid %+v end %+v at %v\nsignals: mid %+v end %+v at %v", midU, endU, hu.env.Now(), midS, endS, endAtS)
	}
	if !reflect.DeepEqual(hu.recs, hs.recs) {
		t.Fatalf("Updates mirrored %+v\nsignals mirrored %+v", hu.recs, hs.recs)
	}
	if want := sandboxT0.Add(10*time.Minute + 61*time.Minute); !endU.ExpiresAt.Equal(want) || midU.Revision != 3 {
		t.Fatalf("ended %+v, want expiry %v after three extends", endU, want)
	}
}

// TestSandboxExtend_RefusedOnceTheWaitIsOver: while an expired sandbox is
// torn down (slowly: its destroy keeps failing), an extend is refused as
// sandbox_ended and moves nothing.
func TestSandboxExtend_RefusedOnceTheWaitIsOver(t *testing.T) {
	h := newSandboxHarness(t, 10*time.Minute)
	h.provisions()
	h.destroys(6)
	var late extendAnswer
	h.extends(10*time.Minute+5*time.Second, "late", 60, &late)
	st := h.run()
	refusedAs(t, "extend during teardown", late.err, ErrTypeSandboxEnded)
	if st.Status != SandboxTerminated || st.EndReason != SandboxEndExpired || st.Revision != 0 || !st.ExpiresAt.Equal(sandboxT0.Add(10*time.Minute)) {
		t.Fatalf("ended %+v", st)
	}
}
