package research

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// reflection is the wave workflow's state and its dirty flag.
type reflection struct {
	state ReflectionState
	dirty bool
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
// is bound.
func (w *reflection) lifecycle() *lifecycle[ReflectionState, ReflectionTransitionResult] {
	var l *lifecycle[ReflectionState, ReflectionTransitionResult]
	l = &lifecycle[ReflectionState, ReflectionTransitionResult]{
		kind: KindReflection, projectID: w.state.ProjectID,
		state: func() ReflectionState { return w.state }, dirty: &w.dirty,
		reviews: func() map[string]ReviewState { return w.state.Reviews }, changed: w.changed,
		check: func(req TransitionRequest) error {
			_, err := rg.Check(w.state.Status, w.state.Facts(), req.Transition)
			return refusal(err)
		},
		transition: w.transition,
		receive: func(ctx workflow.Context) error {
			w.receiveVerified(ctx)
			n := w.notices()
			n.answered = l.answerMirrored
			return n.register(ctx)
		},
		revision: func() int { return w.state.Revision },
		due:      func() bool { return w.advanceDue() || w.publishDue() },
		work: func(ctx workflow.Context) error {
			if w.advanceDue() {
				w.advance(ctx)
			}
			if w.publishDue() {
				return w.publish(ctx)
			}
			return nil
		},
		mirror: func(ctx, actx workflow.Context) error {
			d := w.state.Decision()
			if err := upsertGate(ctx, d); err != nil {
				return err
			}
			rec := ReflectionRecord{ReflectionID: w.state.ReflectionID, Status: string(w.state.Status), Gate: d.Gate,
				NextAction: d.NextAction, Attempt: w.state.Attempt, Revision: w.state.Revision, Terminal: w.state.Status.Terminal()}
			return workflow.ExecuteActivity(actx, RecordReflectionActivity, rec).Get(ctx, nil)
		},
		terminal:      func() bool { return w.state.Status.Terminal() },
		finalActivity: StoreReflectionFinalActivity,
	}
	return l
}

// ReflectionTransitionResult answers TransitionUpdate on a wave.
type ReflectionTransitionResult struct {
	Transition string         `json:"transition"`
	From       rg.Status      `json:"from"`
	Status     rg.Status      `json:"status"`
	Attempt    int            `json:"attempt_index"`
	Decision   gates.Decision `json:"workflow"`
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

// move changes status, records the sealed artifacts and resets the review
// of a review status being entered.
func (w *reflection) move(now time.Time, name string, to rg.Status, newAttempt bool) {
	w.state.History = append(w.state.History, moveRecord(name, gates.Status(w.state.Status), gates.Status(to), w.state.Attempt, w.state.Artifacts, now))
	if newAttempt {
		w.state.Attempt++
	}
	w.state.Status = to
	if rk, ok := rg.ReviewKinds[to]; ok {
		w.state.Reviews[rk.Kind] = ReviewState{Status: ReviewStatusNone}
	}
	w.changed()
}

func (w *reflection) changed() {
	w.state.Revision++
	w.dirty = true
}

func (w *reflection) artifactLanded(a ReflectionArtifact) {
	if w.state.Status.Terminal() || a.Attempt != w.state.Attempt {
		return
	}
	if a.Role == string(rg.EvLensDocs) && !w.hasLens(a.LensID) {
		return
	}
	w.state.Artifacts[ArtifactKey(a.Role, a.LensID)] = a.ArtifactRef
	w.changed()
}

func (w *reflection) hasLens(id string) bool {
	for _, l := range w.state.Lenses {
		if l.ID == id {
			return true
		}
	}
	return false
}

func (w *reflection) reviewRequested(r ReviewRequested) {
	if w.state.ReviewKind() != r.Kind || w.state.Decision().ReviewEvidence == "" {
		return
	}
	w.state.Reviews[r.Kind] = ReviewState{Status: ReviewStatusRequested, RequestID: r.RequestID, Role: r.Role,
		ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken}
	w.changed()
}

func (w *reflection) reviewStarted(r ReviewStarted) {
	cur := w.state.Reviews[r.Kind]
	if w.state.ReviewKind() != r.Kind || cur.RequestID != r.RequestID || cur.Status != ReviewStatusRequested {
		return
	}
	cur.Status = ReviewStatusStarted
	w.state.Reviews[r.Kind] = cur
	w.changed()
}

// reviewVerdict applies a verdict of the current request; the API checked
// it with reflectgates.RouteVerdict before signalling.
func (w *reflection) reviewVerdict(now time.Time, v ReviewVerdict) {
	cur := w.state.Reviews[v.Kind]
	if w.state.ReviewKind() != v.Kind || cur.RequestID != v.RequestID || w.state.Advance != nil {
		return
	}
	route, err := rg.RouteVerdict(v.Kind, v.Verdict, v.ReturnTo)
	if err != nil {
		return
	}
	if !route.Moves {
		cur.Status = ReviewStatusPassed
		w.state.Reviews[v.Kind] = cur
		w.changed()
		return
	}
	w.state.RevisionContext = &RevisionContext{From: gates.Status(w.state.Status), Verdict: v.Verdict, ReturnTo: string(route.To),
		Synopsis: v.Synopsis, Notes: v.Notes, RequestID: v.RequestID,
		Findings: v.Findings, Evidence: v.Evidence}
	w.state.Reviews[v.Kind] = ReviewState{Status: ReviewStatusNone}
	if route.NewRevision {
		w.newProposalRevision()
	}
	w.state.History = append(w.state.History, TransitionRecord{Transition: "review_" + v.Verdict, From: gates.Status(w.state.Status),
		To: gates.Status(route.To), Attempt: w.state.Attempt, At: now})
	if route.NewAttempt {
		w.state.Attempt++
	}
	w.state.Status = route.To
	w.changed()
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
