package research

import (
	"errors"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// notify sends NoticeUpdate with id and hands its answer (or rejection) to got.
func notify(env *testsuite.TestWorkflowEnvironment, id string, n Notice, got func(ExperimentState, error)) {
	env.UpdateWorkflow(NoticeUpdate, id, &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { got(ExperimentState{}, err) },
		OnComplete: func(v any, err error) {
			st, _ := v.(ExperimentState)
			got(st, err)
		},
	}, n)
}

// TestNotice_AnswersTheStateWithTheRecordApplied: the api's Update is
// answered with the state that already holds the record (no polling),
// and the gate it opened.
func TestNotice_AnswersTheStateWithTheRecordApplied(t *testing.T) {
	h := newHarness(t)
	art := ArtifactRef{ArtifactID: "art_plan", Role: "plan", Path: "plan.md", SHA256: "ab", Size: 2, Valid: true}
	answered := false
	h.add(func() {
		before := h.state()
		h.db.record(ArtifactLandedSignal, art)
		n := Notice{Signal: ArtifactLandedSignal, RecordID: art.ArtifactID}
		notify(h.env, n.UpdateID(), n, func(st ExperimentState, err error) {
			answered = true
			if err != nil || st.Revision != before.Revision+1 || st.Artifacts["plan"].ArtifactID != art.ArtifactID ||
				st.Decision().Gate != "design_review_required" {
				t.Errorf("answer %+v, %v; want the plan applied at revision %d", st, err, before.Revision+1)
			}
		})
	}).transition(gates.TAbandon, nil)
	h.run(input)
	if !answered {
		t.Fatal("the notice was never answered")
	}
}

// TestNotice_ValidatorRefusesBadNoticesWithoutHistory: an unknown signal
// or a notice without a record is refused as invalid_input by the
// validator, and the state does not move.
func TestNotice_ValidatorRefusesBadNoticesWithoutHistory(t *testing.T) {
	h := newHarness(t)
	for i, n := range []Notice{{Signal: "sandbox-release", RecordID: "x"}, {Signal: ArtifactLandedSignal}, {Signal: ProposalSubmittedSignal, RecordID: "p"}} {
		var before ExperimentState
		h.add(func() {
			before = h.state()
			h.env.UpdateWorkflow(NoticeUpdate, "bad-"+string(rune('a'+i)), &testsuite.TestUpdateCallback{
				OnAccept: func() { t.Errorf("%+v accepted", n) },
				OnReject: func(err error) {
					var ae *temporal.ApplicationError
					if !errors.As(err, &ae) || ae.Type() != ErrTypeInvalidInput {
						t.Errorf("%+v: rejection %v, want %s", n, err, ErrTypeInvalidInput)
					}
				},
				OnComplete: func(any, error) {},
			}, n)
		}).add(func() {
			if after := h.state(); after.Revision != before.Revision || len(after.RejectedSignals) != 0 {
				t.Errorf("refused %+v changed the state: rev %d→%d, rejected %v", n, before.Revision, after.Revision, after.RejectedSignals)
			}
		})
	}
	h.transition(gates.TAbandon, nil).run(input)
	if n := len(h.db.queries); n != 0 {
		t.Fatalf("refused notices ran %d verifications", n)
	}
}

// TestNotice_ARetryAppliesOnce: the same notice retried, under the same
// Update ID (a client retry) or a new one (another api replica), changes
// the state once; the review notices walk the gate as the signals did.
func TestNotice_ARetryAppliesOnce(t *testing.T) {
	h := newHarness(t)
	art := ArtifactRef{ArtifactID: "art_p", Role: "plan", Path: "plan.md", SHA256: "ab", Size: 2, Valid: true}
	n := Notice{Signal: ArtifactLandedSignal, RecordID: art.ArtifactID}
	var revs []int
	keep := func(st ExperimentState, err error) {
		if err != nil {
			t.Errorf("notice: %v", err)
		}
		revs = append(revs, st.Revision)
	}
	h.add(func() {
		h.db.record(ArtifactLandedSignal, art)
		notify(h.env, n.UpdateID(), n, keep)
	}).add(func() { notify(h.env, n.UpdateID(), n, keep) }).
		add(func() { notify(h.env, "another-replica", n, keep) }).
		transition(gates.TSubmitDesign, nil).
		add(func() {
			st := h.state()
			h.db.record(ReviewRequestedSignal, ReviewRequested{Kind: "design", RequestID: "rr_1", Role: "design_reviewer", SnapshotToken: st.SnapshotToken()})
			rn := Notice{Signal: ReviewRequestedSignal, RecordID: "rr_1"}
			notify(h.env, rn.UpdateID(), rn, keep)
			notify(h.env, rn.UpdateID()+"-again", rn, keep)
		}).
		add(func() {
			if st := h.state(); st.Reviews["design"].Status != ReviewStatusRequested || st.Reviews["design"].RequestID != "rr_1" {
				t.Errorf("review after the request notice: %+v", st.Reviews["design"])
			}
		}).
		transition(gates.TAbandon, nil)
	st := h.run(input)
	if len(revs) != 5 || revs[0] != revs[1] || revs[1] != revs[2] || revs[3] != revs[4] || revs[3] == revs[2] {
		t.Fatalf("revisions answered %v: each record must apply once", revs)
	}
	if st.Revision != revs[4]+1 {
		t.Fatalf("final revision %d, want %d (abandon after the request)", st.Revision, revs[4]+1)
	}
}

// TestNotice_AForgedNoticeOpensNothing: a notice no record backs is
// answered with an unchanged state and kept in rejected_signals, as a
// forged signal is.
func TestNotice_AForgedNoticeOpensNothing(t *testing.T) {
	h := newHarness(t)
	h.add(func() {
		n := Notice{Signal: ArtifactLandedSignal, RecordID: "art_forged"}
		notify(h.env, n.UpdateID(), n, func(st ExperimentState, err error) {
			if err != nil || st.Revision != 0 || len(st.Artifacts) != 0 || len(st.RejectedSignals) != 1 || st.RejectedSignals[0].RecordID != "art_forged" {
				t.Errorf("forged notice answered %+v, %v", st, err)
			}
		})
	}).expect(gates.Planned, gate("plan_required"), 0).transition(gates.TAbandon, nil)
	h.run(input)
}

// TestNotice_AWaveTakesItsNotices: a reflection wave applies a lens doc
// and a proposal by notice, once each, and refuses a dependency notice.
func TestNotice_AWaveTakesItsNotices(t *testing.T) {
	w := newWave(t)
	doc := ReflectionArtifact{LensID: "amplify", ArtifactRef: ArtifactRef{ArtifactID: "lens_a", Role: string(rg.EvLensDocs), SHA256: "s", Valid: true}}
	var revs []int
	send := func(id string, n Notice) {
		w.env.UpdateWorkflow(NoticeUpdate, id, &testsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) { revs = append(revs, -1) },
			OnComplete: func(v any, err error) {
				st, _ := v.(ReflectionState)
				if err != nil || st.Artifacts[ArtifactKey(doc.Role, doc.LensID)].ArtifactID != doc.ArtifactID {
					t.Errorf("wave notice answered %+v, %v", st, err)
				}
				revs = append(revs, st.Revision)
			},
		}, n)
	}
	n := Notice{Signal: ArtifactLandedSignal, RecordID: doc.ArtifactID}
	w.step(func() { w.db.record(ArtifactLandedSignal, doc); send("a", n) }).
		step(func() { send("b", n) }).
		step(func() { send("c", Notice{Signal: DependencySettledSignal, RecordID: "exp_a"}) }).
		transition(rg.TAbandon, false)
	w.run()
	if len(revs) != 3 || revs[0] != 1 || revs[1] != 1 || revs[2] != -1 {
		t.Fatalf("wave answers %v, want [1 1 -1]", revs)
	}
}
