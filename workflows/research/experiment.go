package research

import (
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// experiment is the workflow's state and its share of the skeleton.
type experiment struct {
	state ExperimentState
	core[gates.Status]
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
func (w *experiment) lifecycle() *lifecycle[ExperimentState, gates.Status, TransitionResult] {
	s := &w.state
	w.core = core[gates.Status]{status: &s.Status, attempt: &s.Attempt, revision: &s.Revision, history: &s.History,
		revisionContext: &s.RevisionContext, artifacts: s.Artifacts, reviews: s.Reviews, pendingAt: ReviewKindOf,
		route: func(v ReviewVerdict) (gateengine.Route[gates.Status], error) {
			return gates.RouteVerdict(s.Status, v.Verdict, v.ReturnTo)
		},
		gate: signalGate{targetType: TargetExperiment, projectID: s.ProjectID, targetID: s.ExperimentID,
			rejected: &s.RejectedSignals, reviews: &w.core, records: map[string]gatedRecord{
				ArtifactLandedSignal: {apply: func(ctx workflow.Context, rec DecisionRecord) {
					if rec.Artifact != nil {
						w.landed(ctx, rec.Artifact.Role, rec.Artifact.ArtifactRef)
					}
				}, applied: func(rec DecisionRecord) bool {
					return rec.Artifact != nil && s.Artifacts[rec.Artifact.Role].ArtifactID == rec.Artifact.ArtifactID
				}},
				DependencySettledSignal: {apply: func(_ workflow.Context, rec DecisionRecord) {
					if rec.Dependency != nil {
						w.dependencySettled(*rec.Dependency)
					}
				}, applied: func(rec DecisionRecord) bool {
					return rec.Dependency != nil && s.Dependencies[rec.Dependency.ExperimentID] == rec.Dependency.Status
				}},
			}}}
	return &lifecycle[ExperimentState, gates.Status, TransitionResult]{
		kind: KindExperiment, state: func() ExperimentState { return w.state }, core: &w.core,
		check: func(req TransitionRequest) error {
			_, err := gates.Check(s.Status, s.Facts(), req.Transition)
			return refusal(err)
		},
		transition: w.transition,
		receive: func(ctx workflow.Context) {
			g := &w.gate
			receiveGated(ctx, g, ArtifactLandedSignal, func(a ArtifactRef) string { return a.ArtifactID },
				func(ctx workflow.Context, a ArtifactRef) { w.landed(ctx, a.Role, a) })
			g.receiveReviews(ctx)
			receiveGated(ctx, g, DependencySettledSignal, func(d DependencySettled) string { return d.ExperimentID },
				func(_ workflow.Context, d DependencySettled) { w.dependencySettled(d) })
			receiveIn(ctx, SandboxActivitySignal, func(_ workflow.Context, a SandboxActivity) { w.sandboxActivity(a) })
		},
		due: func() bool { return false }, work: func(workflow.Context) error { return nil },
		decision: s.Decision, recordActivity: RecordExperimentActivity,
		record: func(d gateengine.Decision) any {
			return ExperimentRecord{ProjectID: s.ProjectID, ExperimentID: s.ExperimentID, Status: s.Status,
				Gate: d.Gate, NextAction: d.NextAction, Attempt: s.Attempt, Revision: s.Revision, Conclusion: s.Conclusion}
		},
		finalActivity: StoreExperimentFinalActivity,
	}
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
	w.move(workflow.Now(ctx), m.Name, m.To, m.NewAttempt)
	return TransitionResult{Transition: m.Name, From: from, Status: w.state.Status, Attempt: w.state.Attempt, Decision: w.state.Decision()}, nil
}

func (w *experiment) dependencySettled(d DependencySettled) {
	if _, ok := w.state.Dependencies[d.ExperimentID]; !ok {
		return
	}
	w.state.Dependencies[d.ExperimentID] = d.Status
	w.changed()
}

// sandboxActivity records an attached sandbox starting, stopping or
// ending abnormally (ExperimentState.SandboxReported); a report that
// changes nothing changes nothing (signals may repeat).
func (w *experiment) sandboxActivity(a SandboxActivity) {
	if w.state.SandboxReported(a.SandboxUID, a.Running, a.Ended) {
		w.dirty = true // the gate changes; the experiment's revision does not
	}
}

func evidenceString(ev map[string]any, key string) string {
	if s, ok := ev[key].(string); ok {
		return s
	}
	return ""
}
