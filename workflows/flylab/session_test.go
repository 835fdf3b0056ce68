package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

const testHash = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// testDecisionID is the one operator decision record newEnv's
// VerifyDecision knows.
const testDecisionID = "decision_test"

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	return newEnvStoring(t, func(context.Context, StateSnapshot) error { return nil })
}

// newEnvStoring is newEnv with save as the SaveSession local activity.
func newEnvStoring(t *testing.T, save func(context.Context, StateSnapshot) error) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Session, workflow.RegisterOptions{Name: SessionWorkflow})
	env.RegisterWorkflowWithOptions(Experiment, workflow.RegisterOptions{Name: ExperimentWorkflow})
	env.RegisterActivityWithOptions(func(context.Context, DecisionRecord) error { return nil },
		activity.RegisterOptions{Name: ActivityRecordDecision})
	env.RegisterActivityWithOptions(save, activity.RegisterOptions{Name: ActivitySaveSession})
	env.RegisterActivityWithOptions(func(context.Context, PublishRequest) error { return nil },
		activity.RegisterOptions{Name: ActivityPublish})
	env.RegisterActivityWithOptions(func(_ context.Context, c DecisionCheck) (DecisionVerdict, error) {
		if c.DecisionID != testDecisionID {
			return DecisionVerdict{Refusal: "no such operator decision record"}, nil
		}
		return DecisionVerdict{Authentic: true, Operator: "olga"}, nil
	}, activity.RegisterOptions{Name: ActivityVerifyDecision})
	return env
}

// callTool sends a ToolUpdate and returns its outcome (or validator error).
func callTool(env *testsuite.TestWorkflowEnvironment, id string, req ToolRequest, got *ToolOutcome, gotErr *error) {
	env.UpdateWorkflow(ToolUpdate, id, &testsuite.TestUpdateCallback{
		OnReject: func(err error) { *gotErr = err },
		OnAccept: func() {},
		OnComplete: func(v any, err error) {
			if err != nil {
				*gotErr = err
				return
			}
			*got = v.(ToolOutcome)
		},
	}, req)
}

func TestSession_StaleRevisionRejectedByValidator(t *testing.T) {
	env := newEnv(t)
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolFind, ExpectedRevision: 7, Args: json.RawMessage(`{}`)}, &out, &err)
		env.CancelWorkflow()
	}, time.Second)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}})
	if err == nil || !containsCode(err, CodeStaleState) {
		t.Fatalf("stale revision accepted: %v %+v", err, out)
	}
}

func TestSession_RetriesActivityAfterFailure(t *testing.T) {
	env := newEnv(t)
	attempts := 0
	env.RegisterActivityWithOptions(func(ctx context.Context, c ToolCall) (ToolEffect, error) {
		attempts++
		if attempts == 1 {
			return ToolEffect{}, errors.New("database briefly unavailable")
		}
		return ToolEffect{CreatedArtifactIDs: []string{"dd_1"}, Patch: Patch{Discovery: &DiscoveryRef{ID: "dd_1"}}}, nil
	}, activity.RegisterOptions{Name: ActivityFindCircuits})
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolFind, ExpectedRevision: 1, Args: json.RawMessage(`{}`)}, &out, &err)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Minute)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}})
	if err != nil || out.Failure != nil || out.Revision != 2 || attempts != 2 {
		t.Fatalf("err=%v failure=%+v revision=%d attempts=%d", err, out.Failure, out.Revision, attempts)
	}
}

func TestSession_SimulationUnavailableAfterRetriesRunOut(t *testing.T) {
	env := newEnv(t)
	env.RegisterActivityWithOptions(func(ctx context.Context, c ToolCall) (ToolEffect, error) {
		return ToolEffect{}, errors.New("worker lost")
	}, activity.RegisterOptions{Name: ActivitySimulate})
	st := SessionState{SessionID: "session_a", Revision: 3, Experiment: &ExperimentRef{ID: "exp_1", ProtocolHash: testHash, Status: ExperimentApproved}}
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		args := `{"experiment_id":"exp_1","approved_protocol_hash":"` + testHash + `","operation_id":"op"}`
		callTool(env, "u1", ToolRequest{Tool: ToolRun, ExpectedRevision: 3, OperationID: "op", Args: json.RawMessage(args)}, &out, &err)
	}, time.Second)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(Session, SessionInput{State: st})
	if err != nil || out.Failure == nil || out.Failure.Code != CodeSimulationUnavailable || !out.Failure.Retryable || out.Revision != 3 {
		t.Fatalf("err=%v outcome=%+v", err, out)
	}
}

func TestSession_ContinuesAsNewAfterLimit(t *testing.T) {
	env := newEnv(t)
	env.RegisterActivityWithOptions(func(ctx context.Context, c ToolCall) (ToolEffect, error) {
		return ToolEffect{Patch: Patch{Discovery: &DiscoveryRef{ID: "dd"}}}, nil
	}, activity.RegisterOptions{Name: ActivityFindCircuits})
	var out ToolOutcome
	var err error
	env.RegisterDelayedCallback(func() {
		callTool(env, "u1", ToolRequest{Tool: ToolFind, ExpectedRevision: 1, Args: json.RawMessage(`{}`)}, &out, &err)
	}, time.Second)
	env.ExecuteWorkflow(Session, SessionInput{State: SessionState{SessionID: "session_a"}, ContinueAfter: 1})
	var can *workflow.ContinueAsNewError
	if !errors.As(env.GetWorkflowError(), &can) {
		t.Fatalf("did not continue as new: %v", env.GetWorkflowError())
	}
	var next SessionInput
	if err := decodeCAN(can, &next); err != nil || next.State.Revision != 2 || next.State.Discovery == nil {
		t.Fatalf("continued with %+v (%v)", next, err)
	}
}

// TestSession_ApprovalMirroredOnlyForCurrentHashAndRecordedDecision: a
// decision signal for another hash, or one naming no operator decision
// record (forged straight to the session), changes nothing; the real one
// bumps the revision once.
func TestSession_ApprovalMirroredOnlyForCurrentHashAndRecordedDecision(t *testing.T) {
	env := newEnv(t)
	st := SessionState{SessionID: "session_a", Revision: 4, Experiment: &ExperimentRef{ID: "exp_1", ProtocolHash: testHash, Status: ExperimentAwaiting}}
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(DecisionSignal, Decision{ExperimentID: "exp_1", Status: ExperimentApproved, ProtocolHash: "sha256:other"})
		env.SignalWorkflow(DecisionSignal, Decision{ExperimentID: "exp_1", Status: ExperimentApproved, ProtocolHash: testHash, DecidedAt: "forged"})
		env.SignalWorkflow(DecisionSignal, Decision{ExperimentID: "exp_1", Status: ExperimentApproved, ProtocolHash: testHash, DecidedAt: "t",
			DecisionID: testDecisionID})
	}, time.Second)
	var state SessionState
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(StateQuery)
		if err == nil {
			_ = v.Get(&state)
		}
		env.CancelWorkflow()
	}, 2*time.Second)
	env.ExecuteWorkflow(Session, SessionInput{State: st})
	if state.Revision != 5 || state.Experiment.Status != ExperimentApproved || state.Experiment.ApprovedAt != "t" {
		t.Fatalf("state after approval: rev %d %+v", state.Revision, state.Experiment)
	}
}

func containsCode(err error, code string) bool {
	return err != nil && (errorsAsCode(err) == code)
}
