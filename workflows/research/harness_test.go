package research

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// harness drives one experiment workflow in the test environment: every
// step is a delayed callback registered before ExecuteWorkflow, one
// minute apart, so signals and updates arrive in a known order.
type harness struct {
	t     *testing.T
	env   *testsuite.TestWorkflowEnvironment
	steps []func()
	mu    sync.Mutex
	recs  []ExperimentRecord
	// db holds the records behind the signals the harness sends.
	db *ledger
	// finals are the final states the workflow stored (its last step).
	finals []ExperimentState
	n      int
}

func newHarness(t *testing.T) *harness {
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	h := &harness{t: t, env: ts.NewTestWorkflowEnvironment()}
	h.env.RegisterWorkflowWithOptions(Experiment, workflow.RegisterOptions{Name: ExperimentWorkflowName})
	h.db = newLedger(h.env)
	h.env.RegisterActivityWithOptions(func(context.Context, ExperimentRecord) error { return nil },
		activity.RegisterOptions{Name: RecordExperimentActivity})
	h.env.RegisterActivityWithOptions(func(_ context.Context, st ExperimentState) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.finals = append(h.finals, st)
		return nil
	}, activity.RegisterOptions{Name: StoreExperimentFinalActivity})
	return h
}

// expectFinalRecord requires the exact mirror write of the terminal state.
func (h *harness) expectFinalRecord(rec ExperimentRecord) {
	h.env.OnActivity(RecordExperimentActivity, mock.Anything, rec).Return(nil).Once()
}

// run executes the workflow with the queued steps and returns its result.
func (h *harness) run(in ExperimentInput) ExperimentState {
	h.env.OnActivity(RecordExperimentActivity, mock.Anything, mock.Anything).Return(func(_ context.Context, r ExperimentRecord) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.recs = append(h.recs, r)
		return nil
	})
	for i, step := range h.steps {
		h.env.RegisterDelayedCallback(step, time.Duration(i+1)*time.Minute)
	}
	h.env.ExecuteWorkflow(ExperimentWorkflowName, in)
	if !h.env.IsWorkflowCompleted() {
		h.t.Fatal("workflow did not finish")
	}
	if err := h.env.GetWorkflowError(); err != nil {
		h.t.Fatalf("workflow failed: %v", err)
	}
	var st ExperimentState
	if err := h.env.GetWorkflowResult(&st); err != nil {
		h.t.Fatal(err)
	}
	h.env.AssertExpectations(h.t)
	return st
}

func (h *harness) state() ExperimentState {
	v, err := h.env.QueryWorkflow(StateQuery)
	if err != nil {
		h.t.Errorf("query: %v", err)
		return ExperimentState{}
	}
	var st ExperimentState
	if err := v.Get(&st); err != nil {
		h.t.Error(err)
	}
	return st
}

func (h *harness) add(f func()) *harness { h.steps = append(h.steps, f); return h }

// signal sends a signal the api would send, after writing its record.
func (h *harness) signal(name string, v any) {
	h.db.record(name, v)
	h.env.SignalWorkflow(name, v)
}

// land uploads an artifact of role for the current attempt.
func (h *harness) land(role string, valid bool) *harness {
	return h.add(func() {
		h.n++
		st := h.state()
		h.signal(ArtifactLandedSignal, ArtifactRef{ArtifactID: fmt.Sprintf("art_%d", h.n), Role: role,
			Path: role, Attempt: st.Attempt, SHA256: fmt.Sprintf("%064d", h.n), Size: 10, Valid: valid})
	})
}

// review requests, starts and answers the review due now.
func (h *harness) review(verdict, returnTo string) *harness {
	var kind, id string
	h.add(func() {
		h.n++
		st := h.state()
		kind, id = ReviewKindOf(st.Status), fmt.Sprintf("rr_%d", h.n)
		h.signal(ReviewRequestedSignal, ReviewRequested{Kind: kind, RequestID: id, Role: kind + "_reviewer",
			SnapshotToken: st.SnapshotToken()})
	})
	h.expect("", reviewGateOf(&kind), -1)
	h.add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: kind, RequestID: id}) })
	return h.add(func() {
		h.signal(ReviewVerdictSignal, ReviewVerdict{Kind: kind, RequestID: id, Verdict: verdict, ReturnTo: returnTo, Synopsis: "s"})
	})
}

// reviewGateOf returns a gate check: a requested review sits at its status's gate.
func reviewGateOf(kind *string) func() string {
	return func() string {
		if *kind == "design" {
			return string(gates.DesignReview)
		}
		return string(gates.ExperimentReview)
	}
}

// transition runs the update and requires it accepted.
func (h *harness) transition(name string, evidence map[string]any) *harness {
	id := fmt.Sprintf("u%d", len(h.steps))
	return h.add(func() {
		h.env.UpdateWorkflow(TransitionUpdate, id, &testsuite.TestUpdateCallback{
			OnReject:   func(err error) { h.t.Errorf("%s rejected: %v", name, err) },
			OnAccept:   func() {},
			OnComplete: func(any, error) {},
		}, TransitionRequest{Transition: name, Evidence: evidence})
	})
}

// refused runs the update and requires the validator to reject it with
// errType, leaving revision and history as they were.
func (h *harness) refused(name, errType string) *harness {
	var before ExperimentState
	id := fmt.Sprintf("refused-%d", len(h.steps))
	h.add(func() {
		before = h.state()
		h.env.UpdateWorkflow(TransitionUpdate, id, &testsuite.TestUpdateCallback{
			OnAccept: func() { h.t.Errorf("%s accepted at %s", name, before.Status) },
			OnReject: func(err error) {
				var ae *temporal.ApplicationError
				if !errors.As(err, &ae) || ae.Type() != errType {
					h.t.Errorf("%s: rejection %v, want %s", name, err, errType)
				}
				if errType == ErrTypeGateBlocked {
					var be gateengine.BlockedError
					if ae.Details(&be) != nil || be.Transition != name || len(be.BlockedActions) == 0 {
						h.t.Errorf("%s: details %+v", name, be)
					}
				}
			},
			OnComplete: func(any, error) {},
		}, TransitionRequest{Transition: name})
	})
	return h.add(func() {
		after := h.state()
		if after.Revision != before.Revision || len(after.History) != len(before.History) || after.Status != before.Status {
			h.t.Errorf("refused %s changed the state: rev %d→%d", name, before.Revision, after.Revision)
		}
	})
}

// expect checks status (if set), gate (if set) and attempt (if ≥ 0).
func (h *harness) expect(status gates.Status, gate func() string, attempt int) *harness {
	return h.add(func() {
		st := h.state()
		d := st.Decision()
		if status != "" && st.Status != status {
			h.t.Errorf("step: status %s, want %s", st.Status, status)
		}
		if gate != nil && d.Gate != gate() {
			h.t.Errorf("step: gate %s, want %s (status %s)", d.Gate, gate(), st.Status)
		}
		if attempt >= 0 && st.Attempt != attempt {
			h.t.Errorf("step: attempt %d, want %d", st.Attempt, attempt)
		}
	})
}

func gate(g string) func() string { return func() string { return g } }

// planToRunning walks planned → running with a passing design review.
func (h *harness) planToRunning() *harness {
	return h.land("plan", true).transition(gates.TSubmitDesign, nil).review(gateengine.VerdictPass, "").
		expect(gates.DesignReview, gate("design_review_passed"), -1).
		transition(gates.TMarkReadyToRun, nil).transition(gates.TStartRunning, nil).expect(gates.Running, gate("execution_ready"), -1)
}

// results lands the three running artifacts and submits them.
func (h *harness) results() *harness {
	return h.land("result", true).land("report", true).land("graph", true).
		expect(gates.Running, gate("experiment_review_required"), -1).transition(gates.TSubmitResults, nil)
}
