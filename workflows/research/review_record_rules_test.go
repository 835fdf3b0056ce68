package research

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// TestExperiment_AVerdictRecordedInTimeCountsAfterTheExpiryTimerFired:
// the database records a verdict a moment before its request expires, so
// the api answers "recorded"; the record reaches the workflow after its
// expiry timer fired. The verdict still moves the experiment.
func TestExperiment_AVerdictRecordedInTimeCountsAfterTheExpiryTimerFired(t *testing.T) {
	h := newHarness(t)
	var expires time.Time
	h.land("plan", true).transition(gates.TSubmitDesign, nil).
		add(func() {
			expires = h.env.Now().Add(150 * time.Second)
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_late", Role: "design_reviewer",
				ExpiresAt: expires, SnapshotToken: h.snapshotToken()})
		}).
		add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_late"}) }).
		// 30 s before expiry the database records the verdict ...
		add(func() {
			r := h.db.review("rr_late")
			r.Status, r.Verdict, r.Synopsis, r.SubmittedAt = RecordSubmitted, gateengine.VerdictNeedsChanges, "tighten", h.env.Now()
			h.db.setReview("rr_late", r)
		}).
		// ... and its notice arrives 30 s after the timer expired the request.
		add(func() {
			if r := h.state().Reviews["design"]; r.Status != ReviewStatusNone || r.ExpiredRequestID != "rr_late" {
				t.Errorf("the timer did not expire the request first: %+v", r)
			}
			h.env.SignalWorkflow(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_late"})
		}).
		expect(gates.Planned, gate("design_review_required"), 0).
		add(func() {
			if rc := h.state().RevisionContext; rc == nil || rc.RequestID != "rr_late" || rc.Synopsis != "tighten" {
				t.Errorf("revision_context %+v", rc)
			}
		}).
		transition(gates.TAbandon, nil)
	h.run(input)
}

// TestExperiment_AVerdictRecordedAfterExpiryChangesNothing: a record whose
// verdict is stamped at or after its request's expiry (no api accepts
// one; a forged or corrupted row could) moves nothing.
func TestExperiment_AVerdictRecordedAfterExpiryChangesNothing(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).
		add(func() {
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_stale", Role: "design_reviewer",
				ExpiresAt: h.env.Now().Add(90 * time.Second), SnapshotToken: h.snapshotToken()})
		}).
		add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_stale"}) }).
		add(func() {
			r := h.db.review("rr_stale")
			r.Status, r.Verdict, r.Synopsis, r.SubmittedAt = RecordSubmitted, gateengine.VerdictPass, "ok", h.env.Now()
			h.db.setReview("rr_stale", r)
			h.env.SignalWorkflow(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_stale"})
		}).
		expect(gates.DesignReview, gate(string(gates.DesignReview)), 0).
		add(func() {
			if r := h.state().Reviews["design"]; r.Status != ReviewStatusNone {
				t.Errorf("a verdict recorded after expiry counted: %+v", r)
			}
		}).
		transition(gates.TAbandon, nil)
	h.run(input)
}

// TestExperiment_AStartedRequestOfASecondRoleCannotDisplaceAnOpenHumanReview:
// the agent's own reviewer request of the same kind, started while a
// human review is open, leaves the human one current, so the operator's
// verdict counts.
func TestExperiment_AStartedRequestOfASecondRoleCannotDisplaceAnOpenHumanReview(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).
		add(func() {
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_human", Role: "human", SnapshotToken: h.snapshotToken()})
		}).
		add(func() {
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_agent", Role: "design_reviewer", SnapshotToken: h.snapshotToken()})
		}).
		add(func() { h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_agent"}) }).
		add(func() {
			if r := h.state().Reviews["design"]; r.RequestID != "rr_human" || r.Status != ReviewStatusRequested {
				t.Errorf("the agent's started request displaced the human one: %+v", r)
			}
			h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_human"})
		}).
		add(func() {
			h.signal(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_human", Verdict: gateengine.VerdictPass, Synopsis: "ok"})
		}).
		expect(gates.DesignReview, gate("design_review_passed"), 0).
		transition(gates.TAbandon, nil)
	h.run(input)
}

// snapshotToken is the experiment's current snapshot token.
func (h *harness) snapshotToken() string {
	st := h.state()
	return st.SnapshotToken()
}

// TestExperiment_AReviewOfAnOlderSnapshotHoldsNothing: a human review
// requested before the plan changed could never pass; the agent's request
// on the current snapshot (which the api stored, superseding the human
// one) becomes the kind's review, and its pass counts.
func TestExperiment_AReviewOfAnOlderSnapshotHoldsNothing(t *testing.T) {
	h := newHarness(t)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).
		add(func() {
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_human", Role: "human", SnapshotToken: h.snapshotToken()})
		}).
		land("plan", true).
		add(func() {
			h.signal(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_agent", Role: "design_reviewer", SnapshotToken: h.snapshotToken()})
		}).
		add(func() {
			if r := h.state().Reviews["design"]; r.RequestID != "rr_agent" {
				t.Errorf("a stale human review held the kind: %+v", r)
			}
			h.signal(ReviewStartedSignal, ReviewStarted{Kind: "design", RequestID: "rr_agent"})
		}).
		add(func() {
			h.signal(ReviewVerdictSignal, ReviewVerdict{Kind: "design", RequestID: "rr_agent", Verdict: gateengine.VerdictPass, Synopsis: "ok"})
		}).
		expect(gates.DesignReview, gate("design_review_passed"), 0).
		transition(gates.TAbandon, nil)
	h.run(input)
}
