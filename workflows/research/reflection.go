package research

import (
	"errors"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// reflection is the wave workflow's state and its share of the skeleton.
type reflection struct {
	state ReflectionState
	core[rg.Status]
}

// Reflection runs one reflection wave from reflecting to published or
// abandoned: lens docs and synthesis artifacts arrive as signals, reviews
// as signals, transitions as a validated update; once the consolidation
// review passes it advances the central ref and publishes by itself.
func Reflection(ctx workflow.Context, in ReflectionInput) (ReflectionState, error) {
	w := &reflection{state: ReflectionState{ProjectID: in.ProjectID, ReflectionID: in.ReflectionID, Title: in.Title,
		Status: rg.Reflecting, Lenses: in.Lenses, Corpus: in.Corpus, Artifacts: map[string]ArtifactRef{},
		Reviews: map[string]ReviewState{}, History: []TransitionRecord{}}}
	l := w.lifecycle()
	if err := l.setup(ctx); err != nil {
		return w.state, err
	}
	err := l.run(ctx)
	return w.state, err
}

// lifecycle is the wave's part of the shared skeleton: besides mirroring,
// it runs the central advance when its gate opens and publishes once it
// is bound. A review request opens only once the gate asks for a review,
// and no verdict applies while an advance is under way.
func (w *reflection) lifecycle() *lifecycle[ReflectionState, rg.Status, ReflectionTransitionResult] {
	s := &w.state
	w.core = core[rg.Status]{status: &s.Status, attempt: &s.Attempt, revision: &s.Revision, history: &s.History,
		revisionContext: &s.RevisionContext, artifacts: s.Artifacts, reviews: s.Reviews,
		pendingAt: func(st rg.Status) string { return rg.ReviewKinds[st].Kind },
		opens:     func() bool { return s.Decision().ReviewEvidence != "" },
		route: func(v ReviewVerdict) (gateengine.Route[rg.Status], error) {
			if s.Advance != nil {
				return gateengine.Route[rg.Status]{}, errAdvancing
			}
			return rg.RouteVerdict(v.Kind, v.Verdict, v.ReturnTo)
		},
		retire: w.newProposalRevision,
		gate: signalGate{targetType: TargetReflection, projectID: s.ProjectID, targetID: s.ReflectionID,
			rejected: &s.RejectedSignals, reviews: &w.core, records: map[string]gatedRecord{
				ArtifactLandedSignal: {apply: func(ctx workflow.Context, rec DecisionRecord) {
					if rec.Artifact != nil {
						w.artifactLanded(ctx, *rec.Artifact)
					}
				}, applied: func(rec DecisionRecord) bool {
					a := rec.Artifact
					return a != nil && s.Artifacts[ArtifactKey(a.Role, a.LensID)].ArtifactID == a.ArtifactID
				}},
				ProposalSubmittedSignal: {apply: func(_ workflow.Context, rec DecisionRecord) {
					if rec.Proposal != nil {
						w.proposalSubmitted(*rec.Proposal)
					}
				}},
			}}}
	return &lifecycle[ReflectionState, rg.Status, ReflectionTransitionResult]{
		kind: KindReflection, state: func() ReflectionState { return w.state }, core: &w.core,
		check: func(req TransitionRequest) error {
			_, err := rg.Check(s.Status, s.Facts(), req.Transition)
			return refusal(err)
		},
		transition: w.transition,
		receive: func(ctx workflow.Context) {
			g := &w.gate
			receiveGated(ctx, g, ArtifactLandedSignal, func(a ReflectionArtifact) string { return a.ArtifactID },
				func(ctx workflow.Context, a ReflectionArtifact) { w.artifactLanded(ctx, a) })
			g.receiveReviews(ctx)
			receiveGated(ctx, g, ProposalSubmittedSignal, func(p ProposalRef) string { return p.ProposalID },
				func(_ workflow.Context, p ProposalRef) { w.proposalSubmitted(p) })
		},
		due: func() bool { return w.advanceDue() || w.publishDue() },
		work: func(ctx workflow.Context) error {
			if w.advanceDue() {
				w.advance(ctx)
			}
			if w.publishDue() {
				return w.publish(ctx)
			}
			return nil
		},
		decision: s.Decision, recordActivity: RecordReflectionActivity,
		record: func(d gateengine.Decision) any {
			return ReflectionRecord{ReflectionID: s.ReflectionID, Status: string(s.Status), Gate: d.Gate,
				NextAction: d.NextAction, Attempt: s.Attempt, Revision: s.Revision, Terminal: s.Status.Terminal()}
		},
		finalActivity: StoreReflectionFinalActivity,
	}
}

// errAdvancing refuses a verdict while the central advance is under way.
var errAdvancing = errors.New("the central advance is under way")

// ReflectionTransitionResult answers TransitionUpdate on a wave.
type ReflectionTransitionResult struct {
	Transition string              `json:"transition"`
	From       rg.Status           `json:"from"`
	Status     rg.Status           `json:"status"`
	Attempt    int                 `json:"attempt_index"`
	Decision   gateengine.Decision `json:"workflow"`
}

// transition applies an accepted move. publish waits for the runner's
// publish, which the bound advance already started.
func (w *reflection) transition(ctx workflow.Context, req TransitionRequest) (ReflectionTransitionResult, error) {
	m, err := rg.Check(w.state.Status, w.state.Facts(), req.Transition)
	if err != nil {
		return ReflectionTransitionResult{}, err
	}
	from := w.state.Status
	if m.Name == rg.TPublish {
		if err := workflow.Await(ctx, func() bool { return w.state.Status.Terminal() }); err != nil {
			return ReflectionTransitionResult{}, err
		}
	} else {
		w.move(workflow.Now(ctx), m.Name, m.To, false)
	}
	return ReflectionTransitionResult{Transition: m.Name, From: from, Status: w.state.Status, Attempt: w.state.Attempt, Decision: w.state.Decision()}, nil
}

// artifactLanded stores a landed artifact; a lens doc only of a roster lens.
func (w *reflection) artifactLanded(ctx workflow.Context, a ReflectionArtifact) {
	if a.Role != string(rg.EvLensDocs) || slices.ContainsFunc(w.state.Lenses, func(l rg.Lens) bool { return l.ID == a.LensID }) {
		w.landed(ctx, ArtifactKey(a.Role, a.LensID), a.ArtifactRef)
	}
}

// newProposalRevision retires the current proposal: the next one is a new,
// immutable revision, reviewed afresh.
func (w *reflection) newProposalRevision() {
	w.state.ProposalRevision++
	w.state.Proposal = nil
	w.state.Reviews["consolidation"] = ReviewState{Status: ReviewStatusNone}
}

func (w *reflection) proposalSubmitted(p ProposalRef) {
	if w.state.Status != rg.Consolidating || p.Revision != w.state.ProposalRevision || w.state.Proposal != nil || w.state.Advance != nil {
		return
	}
	w.state.Proposal = &p
	w.changed()
}
