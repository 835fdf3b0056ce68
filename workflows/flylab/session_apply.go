package flylab

import (
	"encoding/json"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"
)

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// newMissionVersion marks the change that starts a new mission when a
// search or a hypothesis follows a saved bundle (the saved lineage stays
// in the ledger; the session moves on); histories recorded before it
// replay keeping the saved lineage current.
const newMissionVersion = "flylab-new-mission-after-save"

// apply commits a tool's lineage patch. A design with a new experiment id
// revokes the previous experiment and everything downstream and starts
// the new experiment workflow; an identical repeat keeps the lineage.
// Every analysis also joins the session's analysis history, which a new
// batch or design never clears.
func (s *session) apply(ctx workflow.Context, p Patch) {
	st := &s.state
	if (p.Discovery != nil || p.Hypothesis != nil) && st.Bundle != nil &&
		workflow.GetVersion(ctx, newMissionVersion, workflow.DefaultVersion, 1) == 1 {
		s.startNewMission(p.Discovery != nil)
	}
	if p.Discovery != nil {
		st.Discovery = p.Discovery
	}
	if p.Hypothesis != nil {
		st.Hypothesis = p.Hypothesis
	}
	if p.Experiment != nil && (st.Experiment == nil || st.Experiment.ID != p.Experiment.ID) {
		if old := st.Experiment; old != nil {
			s.signalExperiment(ctx, old.ID, RevokeSignal, "superseded by experiment "+p.Experiment.ID)
		}
		st.Experiment = p.Experiment
		if st.Experiment.ExpiresAt == "" {
			st.Experiment.ExpiresAt = workflow.Now(ctx).UTC().Add(ApprovalWait).Format(time.RFC3339Nano)
		}
		st.Batch, st.Analyses, st.Comparison, st.Bundle = nil, nil, nil, nil
		s.startExperiment(ctx, *p.Experiment)
	}
	if p.Batch != nil {
		st.Batch = p.Batch
		st.Analyses, st.Comparison, st.Bundle = nil, nil, nil
		st.RanIDs = append(st.RanIDs, p.Batch.ExperimentID)
		if st.Experiment != nil && st.Experiment.ID == p.Batch.ExperimentID {
			st.Experiment.Status = ExperimentRan
		}
		s.signalExperiment(ctx, p.Batch.ExperimentID, RanSignal, p.Batch.ID)
	}
	if p.Analysis != nil {
		replaced := false
		for i := range st.Analyses {
			if st.Analyses[i].ID == p.Analysis.ID {
				replaced = true
			}
		}
		if !replaced {
			st.Analyses = append(st.Analyses, *p.Analysis)
		}
		if !slices.ContainsFunc(st.AnalysisHistory, func(a AnalysisRef) bool { return a.ID == p.Analysis.ID }) {
			st.AnalysisHistory = append(st.AnalysisHistory, *p.Analysis)
		}
	}
	if p.Comparison != nil {
		st.Comparison = p.Comparison
	}
	if p.Bundle != nil {
		st.Bundle = p.Bundle
	}
}

// startNewMission closes the saved mission: its bundle, and with a new
// search its whole lineage, leave the current state (the ledger, the
// experiment records and the analysis history keep them). The saved
// experiment already ran, so no experiment workflow is waiting on it.
func (s *session) startNewMission(newSearch bool) {
	st := &s.state
	st.Bundle = nil
	if newSearch {
		st.Hypothesis, st.Experiment, st.Batch, st.Analyses, st.Comparison = nil, nil, nil, nil, nil
	}
}

// startExperiment starts the experiment workflow as an abandoned child, so
// it outlives this run across continue-as-new.
func (s *session) startExperiment(ctx workflow.Context, e ExperimentRef) {
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            ExperimentWorkflowID(e.ID),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	})
	child := workflow.ExecuteChildWorkflow(cctx, ExperimentWorkflow, ExperimentInput{
		ExperimentID: e.ID, SessionID: s.state.SessionID, ProtocolHash: e.ProtocolHash,
		SeedManifestHash: e.SeedManifestHash, SessionWorkflowID: workflow.GetInfo(ctx).WorkflowExecution.ID,
	})
	_ = child.GetChildWorkflowExecution().Get(ctx, nil)
}

// signalExperiment tells an experiment workflow something; an experiment
// that already closed needs no signal.
func (s *session) signalExperiment(ctx workflow.Context, experimentID, signal string, arg any) {
	_ = workflow.SignalExternalWorkflow(ctx, ExperimentWorkflowID(experimentID), "", signal, arg).Get(ctx, nil)
}
