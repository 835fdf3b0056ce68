package research

import (
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// expectNext checks status, gate, next action and attempt after the
// previous step.
func (w *wave) expectNext(status rg.Status, gate, next string, attempt int) *wave {
	return w.step(func() {
		st := w.state()
		if d := st.Decision(); st.Status != status || d.Gate != gate || d.NextAction != next || st.Attempt != attempt {
			w.t.Errorf("step %d: %s/%s/%s attempt %d, want %s/%s/%s attempt %d", len(w.steps), st.Status, d.Gate, d.NextAction, st.Attempt,
				status, gate, next, attempt)
		}
	})
}

// toReview walks a new wave to reflection_review.
func (w *wave) toReview() *wave {
	return w.lensDocs().transition(rg.TSubmitReflections, false).synthesis().transition(rg.TSubmitReflectionArtifacts, false)
}

// TestReflection_AFailedReviewNamesAbandonUntilWorkResumes: a reflection
// review or consolidation review whose verdict is fail makes
// abandon_reflection the next action at the gate it returns the wave to;
// the producer's next artifact (or, at consolidating, proposal) of the
// current attempt ends it. needs_changes does not name abandon.
func TestReflection_AFailedReviewNamesAbandonUntilWorkResumes(t *testing.T) {
	t.Run("reflection review, return_to synthesizing", func(t *testing.T) {
		w := newWave(t)
		w.toReview().review("reflection", gateengine.VerdictNeedsChanges, "synthesizing").
			expectNext(rg.Synthesizing, "reflection_review_required", "submit_reflection_artifacts", 0).
			transition(rg.TSubmitReflectionArtifacts, false).review("reflection", gateengine.VerdictFail, "synthesizing").
			expectNext(rg.Synthesizing, "reflection_review_required", "abandon_reflection", 0).
			upload(string(rg.EvChangeSpec), "", true).
			expectNext(rg.Synthesizing, "reflection_review_required", "submit_reflection_artifacts", 0).
			transition(rg.TAbandon, false)
		if st := w.run(); st.Status != rg.Abandoned {
			t.Fatalf("final %s", st.Status)
		}
	})
	t.Run("reflection review, return_to reflecting", func(t *testing.T) {
		w := newWave(t)
		w.toReview().review("reflection", gateengine.VerdictFail, "reflecting").
			expectNext(rg.Reflecting, "reflection_roster_incomplete", "abandon_reflection", 1).
			upload(string(rg.EvLensDocs), rosterOf()[0].ID, true).
			expectNext(rg.Reflecting, "reflection_roster_incomplete", "fan_out_reflection_subagents", 1).
			transition(rg.TAbandon, false)
		w.run()
	})
	t.Run("consolidation review", func(t *testing.T) {
		w := newWave(t)
		w.toReview().review("reflection", gateengine.VerdictPass, "").transition(rg.TBeginConsolidation, false).
			propose(0).review("consolidation", gateengine.VerdictFail, "").
			expectNext(rg.Consolidating, "consolidation_proposal_required", "abandon_reflection", 0).
			propose(1).expectNext(rg.Consolidating, "consolidation_review_required", "launch_consolidation_reviewer", 0).
			review("consolidation", gateengine.VerdictNeedsChanges, "consolidating").
			expectNext(rg.Consolidating, "consolidation_proposal_required", "submit_consolidation_proposal", 0).
			transition(rg.TAbandon, false)
		w.run()
	})
}

// TestReflection_AStaleStartedReviewAsksForANewRequest: a reflection
// review started on a snapshot the wave has left (a new change spec
// landed) makes the next action launch_reflection_reviewer, as the api's
// review_gate says attested_blocked, not wait_for_reflection_review; a
// new request of the same role on the current snapshot replaces it.
func TestReflection_AStaleStartedReviewAsksForANewRequest(t *testing.T) {
	w := newWave(t)
	w.toReview().
		step(func() {
			st := w.state()
			w.send(ReviewRequestedSignal, ReviewRequested{Kind: "reflection", RequestID: "rr_old", Role: "reflection_reviewer", SnapshotToken: st.SnapshotToken()})
		}).
		signal(ReviewStartedSignal, ReviewStarted{Kind: "reflection", RequestID: "rr_old"}).
		expectNext(rg.ReflectionReview, string(rg.ReflectionReview), "wait_for_reflection_review", 0).
		upload(string(rg.EvChangeSpec), "", true).
		expectNext(rg.ReflectionReview, string(rg.ReflectionReview), "launch_reflection_reviewer", 0).
		step(func() {
			st := w.state()
			w.send(ReviewRequestedSignal, ReviewRequested{Kind: "reflection", RequestID: "rr_new", Role: "reflection_reviewer", SnapshotToken: st.SnapshotToken()})
		}).
		signal(ReviewStartedSignal, ReviewStarted{Kind: "reflection", RequestID: "rr_new"}).
		expectNext(rg.ReflectionReview, string(rg.ReflectionReview), "wait_for_reflection_review", 0).
		signal(ReviewVerdictSignal, ReviewVerdict{Kind: "reflection", RequestID: "rr_new", Verdict: gateengine.VerdictPass}).
		expectNext(rg.ReflectionReview, "reflection_review_passed", "begin_consolidation", 0).
		transition(rg.TAbandon, false)
	w.run()
}
