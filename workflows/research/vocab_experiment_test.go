package research

import (
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// expectNext checks status, gate, next action and attempt, and that the
// transition the next action names (if it names one) is allowed.
func (h *harness) expectNext(status gates.Status, gate, next string, attempt int) *harness {
	return h.add(func() {
		st := h.state()
		d := st.Decision()
		if st.Status != status || d.Gate != gate || d.NextAction != next || st.Attempt != attempt {
			h.t.Errorf("step %d: %s/%s/%s attempt %d, want %s/%s/%s attempt %d", len(h.steps), st.Status, d.Gate, d.NextAction, st.Attempt,
				status, gate, next, attempt)
		}
		if mv, ok := gates.MoveOf(next); ok && !slices.Contains(d.Transitions, mv.Name) {
			h.t.Errorf("step %d: next action %s, but %s is not among %v", len(h.steps), next, mv.Name, d.Transitions)
		}
	})
}

// TestExperiment_AFailedDesignReviewNamesAbandonUntilThePlanIsRevised: a
// design review that fails the design sends the experiment back to
// planned with abandon_experiment as its next action, at the gate and
// with the tools of planned; a revised plan is the producer resuming
// work, and the gate's own next action returns. needs_changes does not
// name abandon.
func TestExperiment_AFailedDesignReviewNamesAbandonUntilThePlanIsRevised(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).review(gateengine.VerdictNeedsChanges, "planned").
		expectNext(gates.Planned, "design_review_required", "submit_design_for_review", 0).
		transition(gates.TSubmitDesign, nil).review(gateengine.VerdictFail, "planned").
		expectNext(gates.Planned, "design_review_required", "abandon_experiment", 0).
		land("plan", true).expectNext(gates.Planned, "design_review_required", "submit_design_for_review", 0).
		transition(gates.TSubmitDesign, nil).review(gateengine.VerdictFail, "").
		expectNext(gates.Planned, "design_review_required", "abandon_experiment", 0).
		transition("abandon_experiment", nil)
	if st := h.run(input); st.Status != gates.Abandoned {
		t.Fatalf("final %s", st.Status)
	}
}

// TestExperiment_AFailedExperimentReviewNamesMarkFailedUntilWorkResumes:
// an experiment review whose verdict is fail (not needs_changes) judged
// the attempt failed: at the gate it returns to, planned (new attempt) or
// running (same attempt), the next action is mark_experiment_failed, and
// the mark_failed transition is allowed beside the gate's own. A new
// artifact of the current attempt is the producer resuming work: the
// gate's own next action returns.
func TestExperiment_AFailedExperimentReviewNamesMarkFailedUntilWorkResumes(t *testing.T) {
	t.Run("return_to planned", func(t *testing.T) {
		h := newHarness(t)
		h.planToRunning().results().review(gateengine.VerdictFail, "planned").
			expectNext(gates.Planned, "plan_required", "mark_experiment_failed", 1).
			land("plan", true).expectNext(gates.Planned, "design_review_required", "submit_design_for_review", 1).
			transition(gates.TSubmitDesign, nil).expectNext(gates.DesignReview, string(gates.DesignReview), "launch_design_reviewer", 1).
			transition(gates.TAbandon, nil)
		h.run(input)
	})
	t.Run("return_to running", func(t *testing.T) {
		h := newHarness(t)
		h.planToRunning().results().review(gateengine.VerdictNeedsChanges, "running").
			expectNext(gates.Running, "experiment_review_required", "submit_results_for_review", 0).
			transition(gates.TSubmitResults, nil).review(gateengine.VerdictFail, "running").
			expectNext(gates.Running, "experiment_review_required", "mark_experiment_failed", 0).
			transition("mark_experiment_failed", nil)
		if st := h.run(input); st.Status != gates.Failed {
			t.Fatalf("final %s", st.Status)
		}
	})
	t.Run("work resumes at running", func(t *testing.T) {
		h := newHarness(t)
		h.planToRunning().results().review(gateengine.VerdictFail, "running").
			expectNext(gates.Running, "experiment_review_required", "mark_experiment_failed", 0).
			land("report", true).expectNext(gates.Running, "experiment_review_required", "submit_results_for_review", 0).
			transition(gates.TAbandon, nil)
		h.run(input)
	})
}

// TestExperiment_AStaleStartedReviewAsksForANewRequest: a review started
// on a snapshot the experiment has since left (a new plan landed) is one
// review.submit refuses; status_and_next must say launch_design_reviewer,
// as review_gate says attested_blocked, not wait_for_design_review. A new
// request on the current snapshot is waited for again once started.
func TestExperiment_AStaleStartedReviewAsksForANewRequest(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).
		add(func() {
			st := h.state()
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_old", Role: "design_reviewer", SnapshotToken: st.SnapshotToken()})
		}).
		add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_old"}) }).
		expectNext(gates.DesignReview, string(gates.DesignReview), "wait_for_design_review", 0).
		land("plan", true).
		expectNext(gates.DesignReview, string(gates.DesignReview), "launch_design_reviewer", 0).
		add(func() {
			if r := h.state().Reviews["design"]; r.Status != ReviewStatusStarted || r.RequestID != "rr_old" {
				t.Errorf("the stale review %+v", r)
			}
		}).
		add(func() {
			st := h.state()
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_new", Role: "design_reviewer", SnapshotToken: st.SnapshotToken()})
		}).
		expectNext(gates.DesignReview, string(gates.DesignReview), "launch_design_reviewer", 0).
		add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_new"}) }).
		expectNext(gates.DesignReview, string(gates.DesignReview), "wait_for_design_review", 0).
		add(func() {
			h.signal(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_new", Verdict: gateengine.VerdictPass, Synopsis: "s"})
		}).
		expectNext(gates.DesignReview, "design_review_passed", "mark_ready_to_run", 0).
		transition(gates.TAbandon, nil)
	h.run(input)
}

// TestExperimentState_AnAbnormalSandboxEndAsksForRetryRunning: the
// SandboxActivitySignal handler's state change. A running experiment
// whose attached sandbox ended abnormally with no result of the attempt
// is told retry_running at execution_ready, with the same tools and
// transitions as run_experiment_and_retain_results; a repeat changes
// nothing; a result, a sandbox running again, another report or any
// transition since ends it; a release is no interruption, and a report
// without ended (every recorded history's) changes what it always did.
func TestExperimentState_AnAbnormalSandboxEndAsksForRetryRunning(t *testing.T) {
	running := func() ExperimentState {
		return ExperimentState{Status: gates.Running, Artifacts: map[string]ArtifactRef{}, Reviews: map[string]ReviewState{},
			History: []TransitionRecord{{Transition: gates.TSubmitDesign}, {Transition: gates.TMarkReadyToRun}, {Transition: gates.TStartRunning}}}
	}
	next := func(st *ExperimentState, want string) {
		t.Helper()
		if d := st.Decision(); d.NextAction != want {
			t.Fatalf("next %s (gate %s), want %s", d.NextAction, d.Gate, want)
		}
	}
	st := running()
	if !st.SandboxReported("sbx_a", true, "") {
		t.Fatal("a running report changed nothing")
	}
	next(&st, "run_experiment_and_retain_results")
	if !st.SandboxReported("sbx_a", false, SandboxEndExpired) {
		t.Fatal("an abnormal end changed nothing")
	}
	d := st.Decision()
	fresh := running()
	plain := fresh.Decision()
	if d.Gate != "execution_ready" || d.NextAction != "retry_running" || !slices.Equal(d.Transitions, plain.Transitions) ||
		!slices.Equal(d.AllowedTools, plain.AllowedTools) {
		t.Fatalf("after an abnormal end: %+v, want execution_ready/retry_running as %+v", d, plain)
	}
	if st.SandboxReported("sbx_a", false, SandboxEndExpired) {
		t.Fatal("a repeated report changed the state")
	}
	for name, end := range map[string]func(*ExperimentState){
		"retry_running taken": func(s *ExperimentState) {
			s.History = append(s.History, TransitionRecord{Transition: gates.TRetryRunning, From: gates.Running, To: gates.Running})
		},
		"a result landed": func(s *ExperimentState) {
			s.Artifacts["result"] = ArtifactRef{ArtifactID: "art_r", Role: "result", Valid: true}
		},
		"a sandbox runs again":         func(s *ExperimentState) { s.SandboxReported("sbx_b", true, "") },
		"another sandbox attached":     func(s *ExperimentState) { s.SandboxReported("sbx_c", false, "") },
		"the mirror shows one running": func(s *ExperimentState) { s.SandboxesRunning = []string{"sbx_d"} },
	} {
		t.Run(name, func(t *testing.T) {
			s := st
			s.Artifacts = map[string]ArtifactRef{}
			s.History, s.SandboxesRunning = slices.Clone(st.History), slices.Clone(st.SandboxesRunning)
			end(&s)
			if d := s.Decision(); d.NextAction == "retry_running" || s.Attempt != 0 {
				t.Fatalf("still %s at attempt %d", d.NextAction, s.Attempt)
			}
		})
	}
	reaped := running()
	reaped.SandboxReported("sbx_a", false, SandboxEndReaped)
	next(&reaped, "retry_running")
	released := running()
	released.SandboxReported("sbx_a", true, "")
	released.SandboxReported("sbx_a", false, SandboxEndReleased)
	next(&released, "run_experiment_and_retain_results")
	legacy := running()
	if legacy.SandboxReported("sbx_a", false, "") || legacy.SandboxInterrupted != nil {
		t.Fatalf("a report of a sandbox not running, without ended, changed the state: %+v", legacy)
	}
	failedAtReady := running()
	failedAtReady.Status = gates.ReadyToRun
	failedAtReady.SandboxReported("sbx_a", false, SandboxEndFailed)
	failedAtReady.Status = gates.Running
	next(&failedAtReady, "run_experiment_and_retain_results")
}

// TestExperiment_AnAbnormalSandboxEndAsksForRetryRunning drives the
// workflow: an attached sandbox that expires with no result makes the
// next action retry_running; taking it leaves the experiment running at
// the same attempt with run_experiment_and_retain_results.
func TestExperiment_AnAbnormalSandboxEndAsksForRetryRunning(t *testing.T) {
	h := newHarness(t)
	sandbox := func(running bool, ended string) func() {
		return func() {
			h.env.SignalWorkflow(SandboxActivitySignal, SandboxActivity{SandboxUID: "sbx_a", Running: running, Ended: ended})
		}
	}
	h.planToRunning().
		add(sandbox(true, "")).expectNext(gates.Running, "execution_active", "run_experiment_and_retain_results", 0).
		add(sandbox(false, SandboxEndExpired)).expectNext(gates.Running, "execution_ready", "retry_running", 0).
		transition(gates.TRetryRunning, map[string]any{"reason": "the sandbox expired mid-run"}).
		expectNext(gates.Running, "execution_ready", "run_experiment_and_retain_results", 0).
		add(func() {
			st := h.state()
			if rc := st.RevisionContext; rc == nil || rc.Reason != "the sandbox expired mid-run" || st.History[len(st.History)-1].Transition != gates.TRetryRunning {
				t.Errorf("after retry_running: %+v %+v", rc, st.History)
			}
		}).
		transition(gates.TMarkFailed, nil)
	h.run(input)
}
