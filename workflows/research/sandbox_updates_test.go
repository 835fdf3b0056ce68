package research

import (
	"errors"
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
