package research

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// experiment is the workflow's state and its dirty flag.
type experiment struct {
	state ExperimentState
	dirty bool
}

// Experiment runs one research experiment from planned to a terminal status.
func Experiment(ctx workflow.Context, in ExperimentInput) (ExperimentState, error) {
	w := &experiment{state: ExperimentState{
		ProjectID: in.ProjectID, ExperimentID: in.ExperimentID, Name: in.Name,
		Status: gates.Planned, Artifacts: map[string]ArtifactRef{}, Reviews: map[string]ReviewState{},
		History: []TransitionRecord{},
	}}
	if len(in.DependsOn) > 0 {
		w.state.Dependencies = map[string]gates.Status{}
		for _, d := range in.DependsOn {
			w.state.Dependencies[d] = ""
		}
	}
	l := w.lifecycle()
	if err := l.setup(ctx); err != nil {
		return w.state, err
	}
	err := l.run(ctx)
	return w.state, err
}

// lifecycle is the experiment's part of the shared skeleton.
func (w *experiment) lifecycle() *lifecycle[ExperimentState, TransitionResult] {
	var l *lifecycle[ExperimentState, TransitionResult]
	l = &lifecycle[ExperimentState, TransitionResult]{
		kind: KindExperiment, projectID: w.state.ProjectID,
		state: func() ExperimentState { return w.state }, dirty: &w.dirty,
		reviews: func() map[string]ReviewState { return w.state.Reviews }, changed: w.changed,
		check: func(req TransitionRequest) error {
			_, err := gates.Check(w.state.Status, w.state.Facts(), req.Transition)
			return refusal(err)
		},
		transition: w.transition,
		receive: func(ctx workflow.Context) error {
			w.receiveVerified(ctx)
			receive(ctx, SandboxActivitySignal, w.sandboxActivity)
			n := w.notices()
			n.answered = l.answerMirrored
			return n.register(ctx)
		},
		revision: func() int { return w.state.Revision },
		due:      func() bool { return false }, work: func(workflow.Context) error { return nil },
		mirror: func(ctx, actx workflow.Context) error {
			d := w.state.Decision()
			if err := upsertGate(ctx, d); err != nil {
				return err
			}
			rec := ExperimentRecord{ProjectID: w.state.ProjectID, ExperimentID: w.state.ExperimentID, Status: w.state.Status,
				Gate: d.Gate, NextAction: d.NextAction, Attempt: w.state.Attempt, Revision: w.state.Revision, Conclusion: w.state.Conclusion}
			return workflow.ExecuteActivity(actx, RecordExperimentActivity, rec).Get(ctx, nil)
		},
		terminal:      func() bool { return w.state.Status.Terminal() },
		finalActivity: StoreExperimentFinalActivity,
	}
	return l
}

// receive applies every signal on name, in order, with apply.
func receive[T any](ctx workflow.Context, name string, apply func(T)) {
	ch := workflow.GetSignalChannel(ctx, name)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var v T
			if !ch.Receive(ctx, &v) {
				return
			}
			apply(v)
		}
	})
}

// transition applies an accepted move, sealing the current artifacts.
func (w *experiment) transition(ctx workflow.Context, req TransitionRequest) (TransitionResult, error) {
	m, err := gates.Check(w.state.Status, w.state.Facts(), req.Transition)
	if err != nil { // the validator ran on the same state; kept for replay safety
		return TransitionResult{}, err
	}
	from := w.state.Status
	switch m.Name {
	case gates.TRetryRunning:
		w.state.RevisionContext = &RevisionContext{From: from, Reason: evidenceString(req.Evidence, "reason")}
	case gates.TComplete:
		w.state.Conclusion = evidenceString(req.Evidence, "conclusion")
	}
	w.move(ctx, m.Name, m.To, m.NewAttempt)
	return TransitionResult{Transition: m.Name, From: from, Status: w.state.Status, Attempt: w.state.Attempt, Decision: w.state.Decision()}, nil
}

// move changes status, records the sealed artifacts and resets the review
// of a review status being entered.
func (w *experiment) move(ctx workflow.Context, name string, to gates.Status, newAttempt bool) {
	w.state.History = append(w.state.History, moveRecord(name, w.state.Status, to, w.state.Attempt, w.state.Artifacts, workflow.Now(ctx)))
	if newAttempt {
		w.state.Attempt++
	}
	w.state.Status = to
	if kind := reviewKind(to); kind != "" {
		w.state.Reviews[kind] = ReviewState{Status: ReviewStatusNone}
	}
	w.changed()
}

func (w *experiment) changed() {
	w.state.Revision++
	w.dirty = true
}

func (w *experiment) artifactLanded(a ArtifactRef) {
	if w.state.Status.Terminal() || a.Attempt != w.state.Attempt {
		return
	}
	w.state.Artifacts[a.Role] = a
	w.changed()
}

func (w *experiment) reviewRequested(r ReviewRequested) {
	if reviewKind(w.state.Status) != r.Kind {
		return
	}
	w.state.Reviews[r.Kind] = ReviewState{Status: ReviewStatusRequested, RequestID: r.RequestID, Role: r.Role,
		ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken}
	w.changed()
}

func (w *experiment) reviewStarted(r ReviewStarted) {
	cur := w.state.Reviews[r.Kind]
	if reviewKind(w.state.Status) != r.Kind || cur.RequestID != r.RequestID || cur.Status != ReviewStatusRequested {
		return
	}
	cur.Status = ReviewStatusStarted
	w.state.Reviews[r.Kind] = cur
	w.changed()
}

// reviewVerdict applies a verdict of the current request; the API checked
// it with gates.RouteVerdict before signalling, so a misfit is ignored.
func (w *experiment) reviewVerdict(now time.Time, v ReviewVerdict) {
	cur := w.state.Reviews[v.Kind]
	if reviewKind(w.state.Status) != v.Kind || cur.RequestID != v.RequestID {
		return
	}
	route, err := gates.RouteVerdict(w.state.Status, v.Verdict, v.ReturnTo)
	if err != nil {
		return
	}
	if !route.Moves {
		cur.Status = ReviewStatusPassed
		w.state.Reviews[v.Kind] = cur
		w.changed()
		return
	}
	w.state.RevisionContext = &RevisionContext{From: w.state.Status, Verdict: v.Verdict, ReturnTo: string(route.To),
		Synopsis: v.Synopsis, Notes: v.Notes, RequestID: v.RequestID,
		Findings: v.Findings, Evidence: v.Evidence}
	w.state.Reviews[v.Kind] = ReviewState{Status: ReviewStatusNone}
	w.moveByVerdict(now, v, route)
}

func (w *experiment) moveByVerdict(now time.Time, v ReviewVerdict, route gates.Route) {
	w.state.History = append(w.state.History, TransitionRecord{Transition: fmt.Sprintf("review_%s", v.Verdict),
		From: w.state.Status, To: route.To, Attempt: w.state.Attempt, At: now})
	if route.NewAttempt {
		w.state.Attempt++
	}
	w.state.Status = route.To
	w.changed()
}

func (w *experiment) dependencySettled(d DependencySettled) {
	if _, ok := w.state.Dependencies[d.ExperimentID]; !ok {
		return
	}
	w.state.Dependencies[d.ExperimentID] = d.Status
	w.changed()
}

// sandboxActivity records an attached sandbox starting or stopping to run;
// a report that changes nothing changes nothing (signals may repeat).
func (w *experiment) sandboxActivity(a SandboxActivity) {
	i, found := slices.BinarySearch(w.state.SandboxesRunning, a.SandboxUID)
	switch {
	case a.Running && !found:
		w.state.SandboxesRunning = slices.Insert(w.state.SandboxesRunning, i, a.SandboxUID)
	case !a.Running && found:
		w.state.SandboxesRunning = slices.Delete(w.state.SandboxesRunning, i, i+1)
	default:
		return
	}
	w.dirty = true // the gate changes; the experiment's revision does not
}

func evidenceString(ev map[string]any, key string) string {
	if s, ok := ev[key].(string); ok {
		return s
	}
	return ""
}
