package research

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// wave drives one reflection workflow in the test environment with steps
// one minute apart, checking the gate after each.
type wave struct {
	t       *testing.T
	env     *testsuite.TestWorkflowEnvironment
	steps   []func()
	n       int
	settled []DependencySettled
	db      *ledger
	// finals are the final states the wave stored (its last step).
	finals []ReflectionState
}

func newWave(t *testing.T, advances ...AdvanceResult) *wave {
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	w := &wave{t: t, env: ts.NewTestWorkflowEnvironment()}
	w.env.RegisterWorkflowWithOptions(Reflection, workflow.RegisterOptions{Name: ReflectionWorkflowName})
	w.db = newLedger(w.env)
	// The follow-up child: it must learn its dependency settled.
	w.env.RegisterWorkflowWithOptions(func(ctx workflow.Context, in ExperimentInput) (ExperimentState, error) {
		var d DependencySettled
		workflow.GetSignalChannel(ctx, DependencySettledSignal).Receive(ctx, &d)
		w.settled = append(w.settled, d)
		return ExperimentState{ExperimentID: in.ExperimentID}, nil
	}, workflow.RegisterOptions{Name: ExperimentWorkflowName})
	w.env.RegisterActivityWithOptions(func(context.Context, ReflectionRecord) error { return nil }, activity.RegisterOptions{Name: RecordReflectionActivity})
	w.env.RegisterActivityWithOptions(func(context.Context, ExperimentRecord) error { return nil }, activity.RegisterOptions{Name: RecordExperimentActivity})
	w.env.RegisterActivityWithOptions(func(_ context.Context, st ReflectionState) error { w.finals = append(w.finals, st); return nil },
		activity.RegisterOptions{Name: StoreReflectionFinalActivity})
	i := 0
	w.env.RegisterActivityWithOptions(func(_ context.Context, in AdvanceInput) (AdvanceResult, error) {
		if in.Expected != "base" || in.Owner == "" {
			t.Errorf("advance input %+v", in)
		}
		r := advances[i]
		i++
		return r, nil
	}, activity.RegisterOptions{Name: AdvanceCentralActivity})
	w.env.RegisterActivityWithOptions(func(_ context.Context, in PublishInput) (PublishResult, error) {
		if in.ChangeSpecID == "" || in.GraphID == "" {
			t.Errorf("publish input %+v", in)
		}
		return PublishResult{GraphID: in.GraphID, FollowUps: []FollowUpRef{{ExperimentID: "exp_f", Name: "follow", DependsOn: map[string]string{"exp_a": "complete"}}}}, nil
	}, activity.RegisterOptions{Name: PublishReflectionActivity})
	return w
}

func (w *wave) step(f func()) *wave { w.steps = append(w.steps, f); return w }

func (w *wave) state() ReflectionState {
	v, err := w.env.QueryWorkflow(StateQuery)
	var st ReflectionState
	if err == nil {
		err = v.Get(&st)
	}
	if err != nil {
		w.t.Errorf("query: %v", err)
	}
	return st
}

// expect checks status, gate and attempt after the previous step.
func (w *wave) expect(status rg.Status, gate string, attempt int) *wave {
	return w.step(func() {
		st := w.state()
		if d := st.Decision(); st.Status != status || d.Gate != gate || st.Attempt != attempt {
			w.t.Errorf("step %d: %s/%s attempt %d, want %s/%s attempt %d", len(w.steps), st.Status, d.Gate, st.Attempt, status, gate, attempt)
		}
	})
}

func (w *wave) signal(name string, v any) *wave {
	return w.step(func() { w.send(name, v) })
}

// send sends a signal the api would send, after writing its record.
func (w *wave) send(name string, v any) {
	w.db.record(name, v)
	w.env.SignalWorkflow(name, v)
}

func (w *wave) upload(role, lens string, valid bool) *wave {
	return w.step(func() {
		w.n++
		st := w.state()
		w.send(ArtifactLandedSignal, ReflectionArtifact{LensID: lens, ArtifactRef: ArtifactRef{ArtifactID: role + lens + string(rune('a'+w.n)),
			Role: role, Attempt: st.Attempt, SHA256: "s", Valid: valid}})
	})
}

func (w *wave) lensDocs() *wave {
	for _, l := range rosterOf() {
		w.upload(string(rg.EvLensDocs), l.ID, true)
	}
	return w
}

func (w *wave) synthesis() *wave {
	return w.upload(string(rg.EvProjectGraph), "", true).upload(string(rg.EvReflectionDoc), "", true).upload(string(rg.EvChangeSpec), "", true)
}

// transition runs the update; wantErr says the validator must refuse it.
func (w *wave) transition(name string, wantErr bool) *wave {
	id := fmt.Sprintf("%s-%d", name, len(w.steps))
	return w.step(func() {
		w.env.UpdateWorkflow(TransitionUpdate, id, &testsuite.TestUpdateCallback{
			OnReject: func(err error) {
				if !wantErr {
					w.t.Errorf("%s rejected: %v", name, err)
				}
			},
			OnAccept: func() {
				if wantErr {
					w.t.Errorf("%s accepted", name)
				}
			},
			OnComplete: func(any, error) {},
		}, TransitionRequest{Transition: name})
	})
}

// review requests, starts and answers the pending review of kind.
func (w *wave) review(kind, verdict, returnTo string) *wave {
	id := kind + verdict + returnTo
	w.step(func() {
		st := w.state()
		w.send(ReviewRequestedSignal, ReviewRequested{Kind: kind, RequestID: id + string(rune('a'+len(w.steps))), SnapshotToken: st.SnapshotToken()})
	})
	w.step(func() {
		w.send(ReviewStartedSignal, ReviewStarted{Kind: kind, RequestID: w.state().Reviews[kind].RequestID})
	})
	return w.step(func() {
		w.send(ReviewVerdictSignal, ReviewVerdict{Kind: kind, RequestID: w.state().Reviews[kind].RequestID, Verdict: verdict, ReturnTo: returnTo})
	})
}

func (w *wave) propose(rev int) *wave {
	return w.signal(ProposalSubmittedSignal, ProposalRef{ProposalID: "cp", Revision: rev, BaseSHA: "base", ProposalSHA: "target"})
}

func (w *wave) run() ReflectionState {
	for i, s := range w.steps {
		w.env.RegisterDelayedCallback(s, time.Duration(i+1)*time.Minute)
	}
	w.env.ExecuteWorkflow(ReflectionWorkflowName, ReflectionInput{ProjectID: "p", ReflectionID: "r", Lenses: rosterOf(), Corpus: []string{"exp_a"}})
	if !w.env.IsWorkflowCompleted() {
		w.t.Fatal("workflow did not finish")
	}
	if err := w.env.GetWorkflowError(); err != nil {
		w.t.Fatalf("workflow failed: %v", err)
	}
	var st ReflectionState
	if err := w.env.GetWorkflowResult(&st); err != nil {
		w.t.Fatal(err)
	}
	return st
}

func rosterOf() []rg.Lens {
	return append(append([]rg.Lens{}, rg.CoreLenses...), rg.Lens{ID: "x-lens"}, rg.Lens{ID: "y-lens"})
}

func TestReflection_EveryRejectionPathThenPublished(t *testing.T) {
	w := newWave(t, AdvanceResult{Status: AdvanceStale, Observed: "other"}, AdvanceResult{Status: AdvanceBound, Observed: "target"})
	w.expect(rg.Reflecting, "reflection_roster_incomplete", 0).transition(rg.TSubmitReflections, true).
		upload(string(rg.EvLensDocs), "amplify", false).expect(rg.Reflecting, "reflection_lens_doc_invalid", 0).
		upload(string(rg.EvLensDocs), "not-in-roster", true).
		lensDocs().expect(rg.Reflecting, "reflections_complete", 0).transition(rg.TPublish, true).
		transition(rg.TSubmitReflections, false).expect(rg.Synthesizing, "project_graph_required", 0).
		synthesis().expect(rg.Synthesizing, "reflection_review_required", 0).
		transition(rg.TSubmitReflectionArtifacts, false).expect(rg.ReflectionReview, "reflection_review", 0).
		// needs_changes → synthesizing keeps the attempt and the lens docs.
		review("reflection", gateengine.VerdictNeedsChanges, "synthesizing").expect(rg.Synthesizing, "reflection_review_required", 0).
		transition(rg.TSubmitReflectionArtifacts, false).
		// fail → reflecting starts a new attempt: every lens is redone.
		review("reflection", gateengine.VerdictFail, "reflecting").expect(rg.Reflecting, "reflection_roster_incomplete", 1).
		lensDocs().transition(rg.TSubmitReflections, false).synthesis().transition(rg.TSubmitReflectionArtifacts, false).
		review("reflection", gateengine.VerdictPass, "").expect(rg.ReflectionReview, "reflection_review_passed", 1).
		transition(rg.TBeginConsolidation, false).expect(rg.Consolidating, "consolidation_proposal_required", 1).
		propose(1).expect(rg.Consolidating, "consolidation_proposal_required", 1).
		propose(0).expect(rg.Consolidating, "consolidation_review_required", 1).propose(0).
		review("consolidation", gateengine.VerdictNeedsChanges, "").expect(rg.Consolidating, "consolidation_proposal_required", 1).
		// Revision 1 passes review; its advance is stale, which opens revision 2.
		propose(1).review("consolidation", gateengine.VerdictPass, "").expect(rg.Consolidating, "consolidation_proposal_required", 1).
		propose(2).review("consolidation", gateengine.VerdictPass, "")
	st := w.run()
	if st.Status != rg.Published || st.ProposalRevision != 2 || st.Published == nil || len(st.Advances) != 2 ||
		st.Advances[0].Status != AdvanceStale || st.Advances[1].Status != AdvanceBound {
		t.Fatalf("final %+v", st)
	}
	if len(w.settled) != 1 || w.settled[0] != (DependencySettled{ExperimentID: "exp_a", Status: gates.Complete}) {
		t.Fatalf("follow-up dependency signals %+v", w.settled)
	}
	if st.RevisionContext == nil || st.RevisionContext.Reason == "" {
		t.Fatalf("a stale advance left no revision_context: %+v", st.RevisionContext)
	}
}

func TestReflection_AbandonFromEveryOpenStatus(t *testing.T) {
	paths := map[rg.Status]func(*wave) *wave{
		rg.Reflecting:   func(w *wave) *wave { return w },
		rg.Synthesizing: func(w *wave) *wave { return w.lensDocs().transition(rg.TSubmitReflections, false) },
		rg.ReflectionReview: func(w *wave) *wave {
			return w.lensDocs().transition(rg.TSubmitReflections, false).synthesis().transition(rg.TSubmitReflectionArtifacts, false)
		},
		rg.Consolidating: func(w *wave) *wave {
			return w.lensDocs().transition(rg.TSubmitReflections, false).synthesis().transition(rg.TSubmitReflectionArtifacts, false).
				review("reflection", gateengine.VerdictPass, "").transition(rg.TBeginConsolidation, false).propose(0)
		},
	}
	for status, path := range paths {
		t.Run(string(status), func(t *testing.T) {
			w := path(newWave(t))
			w.step(func() {
				if st := w.state(); st.Status != status {
					t.Errorf("at %s, want %s", st.Status, status)
				}
			}).transition(rg.TAbandon, false)
			if st := w.run(); st.Status != rg.Abandoned || st.History[len(st.History)-1].From != gates.Status(status) {
				t.Fatalf("final %+v", st)
			}
		})
	}
}
