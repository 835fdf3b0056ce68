package research

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// TestExperiment_AnAbandonedReviewExpiresOnATimerAndAsksForANewOne: a
// review requested and started, whose reviewer never answers, expires at
// its expires_at; the gate then asks for a new request instead of waiting
// forever, and a late start of the expired request reopens nothing.
func TestExperiment_AnAbandonedReviewExpiresOnATimerAndAsksForANewOne(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).
		add(func() {
			st := h.state()
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_short", Role: "design_reviewer",
				ExpiresAt: h.env.Now().Add(150 * time.Second), SnapshotToken: st.SnapshotToken()})
		}).
		add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_short"}) }).
		// 120 s after the request: started, the agent waits.
		add(func() {
			st := h.state()
			if d := st.Decision(); st.Reviews["design"].Status != ReviewStatusStarted || d.NextAction != "wait_for_design_review" {
				t.Errorf("before expiry: review %+v, next %s", st.Reviews["design"], d.NextAction)
			}
		}).
		// 180 s after: expired, the agent is told to launch a reviewer again.
		add(func() {
			st := h.state()
			d := st.Decision()
			if r := st.Reviews["design"]; r.Status != ReviewStatusNone || r.ExpiredRequestID != "rr_short" || d.NextAction != "launch_design_reviewer" {
				t.Errorf("after expiry: review %+v, next %s", r, d.NextAction)
			}
		}).
		add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_short"}) }).
		expect(gates.DesignReview, gate(string(gates.DesignReview)), 0).
		add(func() {
			if r := h.state().Reviews["design"]; r.Status != ReviewStatusNone {
				t.Errorf("a late start reopened the expired request: %+v", r)
			}
		}).
		// A new request works as ever.
		review(gateengine.VerdictPass, "").expect(gates.DesignReview, gate("design_review_passed"), 0).
		transition(gates.TAbandon, nil)
	h.run(input)
}

// TestExperiment_ASecondRoleCannotDisplaceAnOpenHumanReview: the agent
// requests its own reviewer beside an open human review; the workflow
// keeps the human one, whose verdict then counts.
func TestExperiment_ASecondRoleCannotDisplaceAnOpenHumanReview(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).
		add(func() {
			st := h.state()
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_human", Role: "human", SnapshotToken: st.SnapshotToken()})
		}).
		add(func() {
			st := h.state()
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_agent", Role: "design_reviewer", SnapshotToken: st.SnapshotToken()})
		}).
		add(func() {
			if r := h.state().Reviews["design"]; r.RequestID != "rr_human" {
				t.Errorf("the agent's request displaced the human one: %+v", r)
			}
			h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_human"})
		}).
		add(func() {
			h.signal(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_human", Verdict: gateengine.VerdictNeedsChanges, Synopsis: "tighten",
				Findings: []any{"no control group"}, Evidence: map[string]any{"read": "plan.md"}})
		}).
		expect(gates.Planned, gate("design_review_required"), 0).
		add(func() {
			// The producer sees the reviewer's findings and evidence.
			if rc := h.state().RevisionContext; rc == nil || len(rc.Findings) != 1 || rc.Evidence["read"] != "plan.md" {
				t.Errorf("revision_context %+v", rc)
			}
		}).
		transition(gates.TAbandon, nil)
	h.run(input)
}
