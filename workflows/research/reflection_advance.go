package research

import (
	"fmt"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// advanceDue: a proposal passed its consolidation review and no advance ran yet.
func (w *reflection) advanceDue() bool {
	if w.state.Status != rg.Consolidating || w.state.Advance != nil {
		return false
	}
	f := w.state.Facts()
	return f[rg.EvProposal] == gateengine.Satisfied && f[rg.EvConsolidationReview] == gateengine.Satisfied
}

// publishDue: the advance is bound and the wave is not yet published.
func (w *reflection) publishDue() bool {
	return w.state.Status == rg.Consolidating && w.state.Advance != nil && w.state.Advance.Status == AdvanceBound
}

// advance records the advance intended and runs the compare-and-swap as a
// retried activity; it settles bound, or failed / stale, which retire the
// proposal and ask for a new revision.
func (w *reflection) advance(ctx workflow.Context) {
	p := w.state.Proposal
	w.state.Advance = &AdvanceState{Revision: p.Revision, Status: AdvanceIntended, Expected: p.BaseSHA, Target: p.ProposalSHA}
	w.changed()
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second, MaximumAttempts: 30},
	})
	in := AdvanceInput{ProjectID: w.state.ProjectID, ReflectionID: w.state.ReflectionID, Revision: p.Revision,
		Expected: p.BaseSHA, Target: p.ProposalSHA, Owner: workflow.GetInfo(ctx).WorkflowExecution.RunID}
	var res AdvanceResult
	if err := workflow.ExecuteActivity(actx, AdvanceCentralActivity, in).Get(ctx, &res); err != nil {
		res = AdvanceResult{Status: AdvanceFailed, Error: err.Error()}
	}
	a := *w.state.Advance
	a.Status, a.Observed, a.Error = res.Status, res.Observed, res.Error
	w.state.Advances = append(w.state.Advances, a)
	if a.Status == AdvanceBound {
		w.state.Advance = &a
		w.changed()
		return
	}
	reason := fmt.Sprintf("central advance %s: expected %s, target %s, observed %s", a.Status, a.Expected, a.Target, a.Observed)
	if a.Error != "" {
		reason += ": " + a.Error
	}
	w.state.RevisionContext = &RevisionContext{From: gates.Status(rg.Consolidating), ReturnTo: string(rg.Consolidating), Reason: reason}
	w.state.Advance = nil
	w.newProposalRevision()
	w.changed()
}

// publish applies the change spec, starts the follow-up experiments (their
// workflows outlive the wave) with their settled dependencies, and ends
// the wave published.
func (w *reflection) publish(ctx workflow.Context) error {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	key := func(role string) string { a, _ := w.state.current(role); return a.ArtifactID }
	in := PublishInput{ProjectID: w.state.ProjectID, ReflectionID: w.state.ReflectionID, ChangeSpecID: key(string(rg.EvChangeSpec)),
		GraphID: key(string(rg.EvProjectGraph)), DocID: key(string(rg.EvReflectionDoc)), Corpus: w.state.Corpus}
	var res PublishResult
	if err := workflow.ExecuteActivity(actx, PublishReflectionActivity, in).Get(ctx, &res); err != nil {
		return err
	}
	for _, f := range res.FollowUps {
		if err := startFollowUp(ctx, w.state.ProjectID, f); err != nil {
			return err
		}
	}
	w.state.Published = &res
	w.move(workflow.Now(ctx), rg.TPublish, rg.Published, false)
	return nil
}

// startFollowUp starts a follow-up experiment as an abandoned child and
// tells it each dependency's settled status.
func startFollowUp(ctx workflow.Context, projectID string, f FollowUpRef) error {
	deps := make([]string, 0, len(f.DependsOn))
	for d := range f.DependsOn {
		deps = append(deps, d)
	}
	slices.Sort(deps)
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: ExperimentWorkflowID(f.ExperimentID),
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON})
	child := workflow.ExecuteChildWorkflow(cctx, ExperimentWorkflowName, ExperimentInput{ProjectID: projectID,
		ExperimentID: f.ExperimentID, Name: f.Name, DependsOn: deps})
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return err
	}
	for _, d := range deps {
		sig := DependencySettled{ExperimentID: d, Status: gates.Status(f.DependsOn[d])}
		if err := workflow.SignalExternalWorkflow(ctx, ExperimentWorkflowID(f.ExperimentID), "", DependencySettledSignal, sig).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}
