package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
)

// TestSession_CommittedOutcomeIsNotRunning: the state a committed call
// returns is the state after it, not "in progress" (its next_action is the
// next call, not a wait).
func TestSession_CommittedOutcomeIsNotRunning(t *testing.T) {
	env := newEnv(t)
	discoverEach(env)
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolFind, ExpectedRevision: 1, Args: json.RawMessage(`{}`)}, &out, &err)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}})
	if err != nil || out.Revision != 2 || out.State.Running != "" {
		t.Fatalf("committed outcome %v running=%q", err, out.State.Running)
	}
}

// TestSession_LapsedApprovalIsMirrored: the experiment workflow's
// revocation at the end of the approval window reaches the session, which
// then refuses the run.
func TestSession_LapsedApprovalIsMirrored(t *testing.T) {
	env := newEnv(t)
	st := SessionState{SessionID: "session_a", Revision: 4, Experiment: &ExperimentRef{ID: "exp_1", ProtocolHash: testHash, Status: ExperimentApproved}}
	var state SessionState
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(DecisionSignal, Decision{ExperimentID: "exp_1", Status: ExperimentRevoked, ProtocolHash: testHash,
			Reason: reasonApprovalExpired})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		v, qerr := env.QueryWorkflow(StateQuery)
		if qerr == nil {
			_ = v.Get(&state)
		}
		args := `{"experiment_id":"exp_1","approved_protocol_hash":"` + testHash + `","operation_id":"op"}`
		callTool(env, "u1", ToolRequest{Tool: ToolRun, ExpectedRevision: 5, OperationID: "op", Args: json.RawMessage(args)}, &out, &err)
	}, 2*time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: st})
	if state.Revision != 5 || state.Experiment.Status != ExperimentRevoked || state.Experiment.Reason != reasonApprovalExpired {
		t.Fatalf("state after the lapse: rev %d %+v", state.Revision, state.Experiment)
	}
	if err != nil || out.Failure == nil || out.Failure.Code != CodeApprovalRequired {
		t.Fatalf("run after the lapse: %v %+v", err, out.Failure)
	}
}

// TestSession_AnalysisHistoryOutlivesANewBatch: a new batch starts a new
// lineage of analyses, but the earlier analysis stays comparable.
func TestSession_AnalysisHistoryOutlivesANewBatch(t *testing.T) {
	env := newEnv(t)
	env.RegisterActivityWithOptions(func(context.Context, ToolCall) (ToolEffect, error) {
		return ToolEffect{Patch: Patch{Batch: &BatchRef{ID: "batch_2", ExperimentID: "exp_2"}}}, nil
	}, activity.RegisterOptions{Name: ActivitySimulate})
	env.OnSignalExternalWorkflow(mock.Anything, ExperimentWorkflowID("exp_2"), "", RanSignal, "batch_2").Return(nil)
	first := AnalysisRef{ID: "analysis_1", BatchID: "batch_1"}
	st := SessionState{SessionID: "session_a", Revision: 9, Experiment: &ExperimentRef{ID: "exp_2", ProtocolHash: testHash, Status: ExperimentApproved},
		Analyses: []AnalysisRef{first}, AnalysisHistory: []AnalysisRef{first}}
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		args := `{"experiment_id":"exp_2","approved_protocol_hash":"` + testHash + `","operation_id":"op"}`
		callTool(env, "u1", ToolRequest{Tool: ToolRun, ExpectedRevision: 9, OperationID: "op", Args: json.RawMessage(args)}, &out, &err)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: st})
	if err != nil || out.Failure != nil || len(out.State.Analyses) != 0 || len(out.State.AnalysisHistory) != 1 {
		t.Fatalf("after the new batch: %v %+v analyses %v history %v", err, out.Failure, out.State.Analyses, out.State.AnalysisHistory)
	}
}

// TestSession_OutageOfANonSimulationToolIsNotSimulationUnavailable: a
// search whose activity runs out of retries (its database is down) fails
// retryable STALE_STATE, not SIMULATION_UNAVAILABLE, and commits nothing.
func TestSession_OutageOfANonSimulationToolIsNotSimulationUnavailable(t *testing.T) {
	env := newEnv(t)
	env.RegisterActivityWithOptions(func(context.Context, ToolCall) (ToolEffect, error) {
		return ToolEffect{}, errors.New("database down")
	}, activity.RegisterOptions{Name: ActivityFindCircuits})
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolFind, ExpectedRevision: 1, Args: json.RawMessage(`{}`)}, &out, &err)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}})
	if err != nil || out.Failure == nil || out.Failure.Code != CodeStaleState || !out.Failure.Retryable || out.Revision != 1 {
		t.Fatalf("err=%v outcome=%+v", err, out.Failure)
	}
}
