package research

import (
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

var input = ExperimentInput{ProjectID: "prj_1", ExperimentID: "exp_1", Name: "exp-one"}

// final is the exact last mirror write of an experiment ending at status.
func final(status gates.Status, attempt, revision int, conclusion string) ExperimentRecord {
	return ExperimentRecord{ProjectID: input.ProjectID, ExperimentID: input.ExperimentID, Status: status, Gate: "terminal",
		NextAction: "none", Attempt: attempt, Revision: revision, Conclusion: conclusion}
}

func TestExperiment_PassPathEndsComplete(t *testing.T) {
	h := newHarness(t)
	h.expect(gates.Planned, gate("plan_required"), 0).
		planToRunning().results().
		review(gateengine.VerdictPass, "").expect(gates.ExperimentReview, gate("experiment_review_passed"), 0).
		transition(gates.TComplete, map[string]any{"conclusion": "it held"})
	// 4 artifacts + 2×3 review signals + 5 transitions = 15 revisions.
	h.expectFinalRecord(final(gates.Complete, 0, 15, "it held"))
	st := h.run(input)
	if st.Status != gates.Complete || st.Conclusion != "it held" || len(st.History) != 5 {
		t.Fatalf("final state %+v", st)
	}
	want := []string{gates.TSubmitDesign, gates.TMarkReadyToRun, gates.TStartRunning, gates.TSubmitResults, gates.TComplete}
	for i, rec := range st.History {
		if rec.Transition != want[i] {
			t.Fatalf("history[%d] = %s, want %s", i, rec.Transition, want[i])
		}
	}
	if got := st.History[3].Sealed; len(got) != 4 {
		t.Fatalf("submit_results sealed %v, want the plan and three results", got)
	}
}

func TestExperiment_DesignReviewRejectionsReturnToPlanned(t *testing.T) {
	for _, c := range []struct{ verdict, returnTo string }{
		{gateengine.VerdictNeedsChanges, "planned"}, {gateengine.VerdictNeedsChanges, ""}, {gateengine.VerdictFail, "planned"},
	} {
		t.Run(c.verdict+"/"+c.returnTo, func(t *testing.T) {
			h := newHarness(t)
			h.land("plan", true).transition(gates.TSubmitDesign, nil).review(c.verdict, c.returnTo).
				// Back at planned with the same attempt; the plan still counts.
				expect(gates.Planned, gate("design_review_required"), 0).
				add(func() {
					rc := h.state().RevisionContext
					if rc == nil || rc.Verdict != c.verdict || rc.ReturnTo != "planned" || rc.From != gates.DesignReview {
						t.Errorf("revision_context %+v", rc)
					}
				}).
				transition(gates.TSubmitDesign, nil).expect(gates.DesignReview, gate(string(gates.DesignReview)), 0).
				transition(gates.TAbandon, nil)
			st := h.run(input)
			if st.Status != gates.Abandoned || st.History[1].Transition != "review_"+c.verdict || st.History[1].At.IsZero() {
				t.Fatalf("final %+v", st)
			}
		})
	}
}

func TestExperiment_ExperimentReviewReturnToPlannedStartsANewAttempt(t *testing.T) {
	for _, verdict := range []string{gateengine.VerdictNeedsChanges, gateengine.VerdictFail} {
		t.Run(verdict, func(t *testing.T) {
			h := newHarness(t)
			h.planToRunning().results().review(verdict, "planned").
				// Attempt 1: the attempt-0 plan no longer counts.
				expect(gates.Planned, gate("plan_required"), 1).
				refused(gates.TSubmitDesign, ErrTypeGateBlocked).
				planToRunning().results().review(gateengine.VerdictPass, "").
				transition("complete_experiment", nil) // the next_action word as alias
			st := h.run(input)
			if st.Status != gates.Complete || st.Attempt != 1 || st.RevisionContext.ReturnTo != "planned" {
				t.Fatalf("final %+v", st)
			}
		})
	}
}

func TestExperiment_ExperimentReviewReturnToRunningKeepsTheAttempt(t *testing.T) {
	h := newHarness(t)
	h.planToRunning().results().review(gateengine.VerdictNeedsChanges, "running").
		// Same attempt: result, report and graph still count.
		expect(gates.Running, gate("experiment_review_required"), 0).
		land("report", false).expect(gates.Running, gate("report_invalid"), 0).
		refused(gates.TSubmitResults, ErrTypeGateBlocked).
		land("report", true).transition("submit_results_for_review", nil).
		review(gateengine.VerdictPass, "").transition(gates.TComplete, nil)
	st := h.run(input)
	if st.Status != gates.Complete || st.Attempt != 0 || st.RevisionContext.ReturnTo != "running" {
		t.Fatalf("final %+v", st)
	}
}

func TestExperiment_AbandonAndMarkFailedFromEveryOpenStatus(t *testing.T) {
	reach := map[gates.Status]func(h *harness){
		gates.Planned:          func(h *harness) {},
		gates.DesignReview:     func(h *harness) { h.land("plan", true).transition(gates.TSubmitDesign, nil) },
		gates.ReadyToRun:       func(h *harness) { h.planToRunning(); h.steps = h.steps[:len(h.steps)-2] },
		gates.Running:          func(h *harness) { h.planToRunning() },
		gates.ExperimentReview: func(h *harness) { h.planToRunning().results() },
	}
	for status, get := range reach {
		for _, tr := range []struct {
			name string
			to   gates.Status
		}{{gates.TAbandon, gates.Abandoned}, {gates.TMarkFailed, gates.Failed}, {"abandon_experiment", gates.Abandoned}, {"mark_experiment_failed", gates.Failed}} {
			t.Run(string(status)+"/"+tr.name, func(t *testing.T) {
				h := newHarness(t)
				get(h)
				h.expect(status, nil, 0).transition(tr.name, nil)
				st := h.run(input)
				last := st.History[len(st.History)-1]
				if st.Status != tr.to || last.From != status || last.To != tr.to {
					t.Fatalf("final %s, last %+v", st.Status, last)
				}
			})
		}
	}
}

func TestExperiment_RetryRunningRecordsTheReason(t *testing.T) {
	h := newHarness(t)
	h.planToRunning().land("result", true).
		transition(gates.TRetryRunning, map[string]any{"reason": "OOM on the first run"}).
		expect(gates.Running, gate("results_report_required"), 0).
		add(func() {
			rc := h.state().RevisionContext
			if rc == nil || rc.Reason != "OOM on the first run" || rc.From != gates.Running {
				t.Errorf("revision_context %+v", rc)
			}
		}).
		transition(gates.TMarkFailed, nil)
	h.expectFinalRecord(final(gates.Failed, 0, 10, ""))
	st := h.run(input)
	if st.Status != gates.Failed || st.History[3].Transition != gates.TRetryRunning {
		t.Fatalf("final %+v", st.History)
	}
}

func TestExperiment_ValidatorRefusalsWriteNothing(t *testing.T) {
	h := newHarness(t)
	h.refused(gates.TSubmitDesign, ErrTypeGateBlocked). // no plan yet
								land("plan", false).expect(gates.Planned, gate("plan_invalid"), 0).
								refused(gates.TSubmitDesign, ErrTypeGateBlocked). // a plan that fails its check
								refused(gates.TComplete, ErrTypeGateBlocked).     // not from planned
								refused("fly", ErrTypeInvalidInput).
								land("plan", true).transition(gates.TSubmitDesign, nil).
								refused(gates.TMarkReadyToRun, ErrTypeGateBlocked). // no review yet
								transition(gates.TAbandon, nil)
	h.expectFinalRecord(final(gates.Abandoned, 0, 4, ""))
	st := h.run(input)
	if len(st.History) != 2 {
		t.Fatalf("history %+v", st.History)
	}
}

func TestExperiment_StalePassAndStaleSignalsDoNotOpenGates(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).review(gateengine.VerdictPass, "").
		// A new plan after the pass changes the snapshot: the pass no longer counts.
		land("plan", true).expect(gates.DesignReview, gate(string(gates.DesignReview)), 0).
		refused(gates.TMarkReadyToRun, ErrTypeGateBlocked).
		// A verdict for an unknown request is ignored.
		add(func() {
			h.env.SignalWorkflow(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_other", Verdict: gateengine.VerdictNeedsChanges})
		}).
		expect(gates.DesignReview, nil, 0).
		transition(gates.TMarkFailed, nil)
	h.run(input)
}

func TestExperiment_DependenciesGateStartRunning(t *testing.T) {
	in := input
	in.DependsOn = []string{"exp_a", "exp_b"}
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).review(gateengine.VerdictPass, "").transition(gates.TMarkReadyToRun, nil).
		expect(gates.ReadyToRun, gate("dependencies_pending"), 0).
		refused(gates.TStartRunning, ErrTypeGateBlocked).
		add(func() {
			h.signal(DependencySettledSignal, DependencySettled{ExperimentID: "exp_a", Status: gates.Complete})
		}).
		expect(gates.ReadyToRun, gate("dependencies_pending"), 0).
		add(func() {
			h.signal(DependencySettledSignal, DependencySettled{ExperimentID: "exp_b", Status: gates.Failed})
		}).
		expect(gates.ReadyToRun, gate("dependency_failed"), 0).
		transition("abandon_experiment", nil)
	if st := h.run(in); st.Status != gates.Abandoned {
		t.Fatalf("final %s", st.Status)
	}
}
