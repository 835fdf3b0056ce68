package research

import (
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// TestExperiment_ForgedSignalsOpenNoGateAndAreLogged sends each gate
// signal straight to the workflow, as anyone who reaches the Temporal
// frontend can, with the values the agent knows: no record backs them,
// so no gate opens and each is kept in rejected_signals.
func TestExperiment_ForgedSignalsOpenNoGateAndAreLogged(t *testing.T) {
	h := newHarness(t)
	h.forge(ArtifactLandedSignal, ArtifactRef{ArtifactID: "art_forged", Role: "plan", Path: "plan.md", SHA256: "ab", Size: 2, Valid: true}).
		expect(gates.Planned, gate("plan_required"), 0).
		land("plan", true).transition(gates.TSubmitDesign, nil).
		forge(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_forged", Role: "design_reviewer"}).
		forge(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_forged"}).
		forge(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_forged", Verdict: gateengine.VerdictPass, Synopsis: "ok"}).
		expect(gates.DesignReview, gate(string(gates.DesignReview)), 0).
		refused(gates.TMarkReadyToRun, ErrTypeGateBlocked)
	// A real request, whose id the agent holds: a pass signalled before
	// any reviewer answered is still refused (the record says requested).
	h.add(func() {
		st := h.state()
		h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_real", Role: "design_reviewer",
			SnapshotToken: st.SnapshotToken()})
	})
	h.forge(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_real", Verdict: gateengine.VerdictPass, Synopsis: "ok"}).
		add(func() {
			st := h.state()
			if d := st.Decision(); d.Gate != string(gates.DesignReview) || st.Reviews["design"].Status != ReviewStatusRequested {
				t.Errorf("after a forged pass on a real request: gate %s, review %+v", d.Gate, st.Reviews["design"])
			}
			want := []string{ArtifactLandedSignal, ReviewRequestedSignal, ReviewStartedSignal, ReviewVerdictSignal, ReviewVerdictSignal}
			if len(st.RejectedSignals) != len(want) {
				t.Fatalf("rejected_signals %+v, want %v", st.RejectedSignals, want)
			}
			for i, r := range st.RejectedSignals {
				if r.Signal != want[i] || r.Reason == "" || r.At.IsZero() {
					t.Errorf("rejected_signals[%d] = %+v, want %s with a reason", i, r, want[i])
				}
			}
		}).
		transition(gates.TAbandon, nil)
	st := h.run(input)
	if len(st.History) != 2 {
		t.Fatalf("history %+v", st.History)
	}
}

// TestExperiment_ASignalsValuesYieldToItsRecord: a forged signal naming a
// real artifact with better values than its record (valid where the
// check failed) gets the record's values.
func TestExperiment_ASignalsValuesYieldToItsRecord(t *testing.T) {
	h := newHarness(t)
	h.add(func() {
		h.db.record(ArtifactLandedSignal, ArtifactRef{ArtifactID: "art_bad", Role: "plan", Path: "plan.md", SHA256: "cd", Size: 3,
			Valid: false, Problems: []string{"missing section ## Method"}})
		h.env.SignalWorkflow(ArtifactLandedSignal, ArtifactRef{ArtifactID: "art_bad", Role: "plan", Path: "plan.md", SHA256: "cd", Size: 3, Valid: true})
	}).
		expect(gates.Planned, gate("plan_invalid"), 0).
		refused(gates.TSubmitDesign, ErrTypeGateBlocked).
		transition(gates.TAbandon, nil)
	h.run(input)
}

// TestExperiment_AForgedDependencySettledDoesNotStartRunning: only the
// dependency's own record settles it.
func TestExperiment_AForgedDependencySettledDoesNotStartRunning(t *testing.T) {
	in := input
	in.DependsOn = []string{"exp_a"}
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).review(gateengine.VerdictPass, "").transition(gates.TMarkReadyToRun, nil).
		add(func() {
			h.env.SignalWorkflow(DependencySettledSignal, DependencySettled{ExperimentID: "exp_a", Status: gates.Complete})
		}).
		expect(gates.ReadyToRun, gate("dependencies_pending"), 0).
		refused(gates.TStartRunning, ErrTypeGateBlocked).
		transition(gates.TAbandon, nil)
	h.run(in)
}

// forge sends a signal straight to the workflow, with no record behind it.
func (h *harness) forge(name string, v any) *harness {
	return h.add(func() { h.env.SignalWorkflow(name, v) })
}

// TestReflection_ForgedSignalsOpenNoGateAndAreLogged: a forged lens doc,
// proposal and consolidation pass leave the wave where it was.
func TestReflection_ForgedSignalsOpenNoGateAndAreLogged(t *testing.T) {
	w := newWave(t)
	forge := func(name string, v any) *wave { return w.step(func() { w.env.SignalWorkflow(name, v) }) }
	forge(ArtifactLandedSignal, ReflectionArtifact{LensID: "amplify", ArtifactRef: ArtifactRef{ArtifactID: "art_forged",
		Role: string(rg.EvLensDocs), SHA256: "s", Valid: true}})
	w.expect(rg.Reflecting, "reflection_roster_incomplete", 0).
		lensDocs().transition(rg.TSubmitReflections, false).synthesis().transition(rg.TSubmitReflectionArtifacts, false).
		review("reflection", gateengine.VerdictPass, "").transition(rg.TBeginConsolidation, false)
	forge(ProposalSubmittedSignal, ProposalRef{ProposalID: "cp_forged", BaseSHA: "base", ProposalSHA: "evil"})
	w.expect(rg.Consolidating, "consolidation_proposal_required", 0).propose(0)
	forge(ReviewVerdictSignal, ReviewVerdict{Kind: "consolidation", RequestID: "rr_forged", Verdict: gateengine.VerdictPass})
	w.expect(rg.Consolidating, "consolidation_review_required", 0).
		step(func() {
			st := w.state()
			if st.Advance != nil || st.Proposal == nil || st.Proposal.ProposalID != "cp" || len(st.RejectedSignals) != 3 {
				t.Errorf("advance %+v, proposal %+v, rejected %+v", st.Advance, st.Proposal, st.RejectedSignals)
			}
		}).
		transition(rg.TAbandon, false)
	if st := w.run(); st.Status != rg.Abandoned || len(st.Advances) != 0 {
		t.Fatalf("final %+v", st)
	}
}
