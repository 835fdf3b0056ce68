package flylab

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/platform"
)

type session struct {
	attempts  int // decision verifications, keying their refusal records
	state     SessionState
	limit     int
	committed int
	inFlight  string // operation key of the mutation being handled
	saved     int    // revision of the last snapshot stored (session_snapshot.go)
	upserted  string // the GatehouseGate value last upserted; "" before the first
	cancel    cancellation
}

// Session is the long-lived page session workflow
// (flylab-session/<session_id>). Every mutating tool call arrives as the
// ToolUpdate; its validator rejects stale revisions and operation-id
// conflicts before anything reaches history, and its handler serializes
// mutations, runs the tool's activity and commits the lineage patch.
// Operator decisions arrive from experiment workflows as DecisionSignal.
// The run continues as new after ContinueAfter commits or when Temporal
// suggests it, once no handler is running. Every commit is stored as a
// snapshot (session_snapshot.go), so the session outlives the workflow.
func Session(ctx workflow.Context, in SessionInput) error {
	s := &session{state: in.State, limit: in.ContinueAfter}
	if s.limit <= 0 {
		s.limit = defaultLimit
	}
	if s.state.Revision < 1 {
		s.state.Revision = 1
	}
	// A new session has nothing to store; a continued or restored one was
	// stored up to the revision it starts from.
	s.saved = s.state.Revision
	if err := s.setup(ctx); err != nil {
		return err
	}
	return s.run(ctx, in)
}

func (s *session) setup(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, StateQuery, func() (SessionState, error) { return s.state, nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, ToolUpdate, s.handleTool,
		workflow.UpdateHandlerOptions{Validator: s.validateTool}); err != nil {
		return err
	}
	s.listenForCancels(ctx)
	return s.setGate(ctx)
}

func (s *session) run(ctx workflow.Context, in SessionInput) error {
	decisions := workflow.GetSignalChannel(ctx, DecisionSignal)
	for {
		if err := workflow.Await(ctx, func() bool { return decisions.Len() > 0 || s.shouldContinue(ctx) }); err != nil {
			return err
		}
		s.drain(ctx, decisions)
		s.persist(ctx)
		if !s.shouldContinue(ctx) {
			continue
		}
		if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && s.inFlight == "" }); err != nil {
			return err
		}
		s.drain(ctx, decisions)
		s.persist(ctx)
		return workflow.NewContinueAsNewError(ctx, SessionWorkflow, SessionInput{State: s.state, ContinueAfter: in.ContinueAfter})
	}
}

func (s *session) shouldContinue(ctx workflow.Context) bool {
	return s.committed >= s.limit || workflow.GetInfo(ctx).GetContinueAsNewSuggested()
}

func (s *session) drain(ctx workflow.Context, ch workflow.ReceiveChannel) {
	for {
		var d Decision
		if !ch.ReceiveAsync(&d) {
			return
		}
		s.applyDecision(ctx, d)
	}
}

// applyDecision mirrors an operator decision on the current experiment,
// or the expiry of its gate or of its unused approval (a revocation by
// the experiment's timer); a decision on a superseded experiment changes
// nothing.
func (s *session) applyDecision(ctx workflow.Context, d Decision) {
	e := s.state.Experiment
	if e == nil || e.ID != d.ExperimentID || e.ProtocolHash != d.ProtocolHash {
		return
	}
	switch {
	case e.Status == ExperimentAwaiting && (d.Status == ExperimentApproved || d.Status == ExperimentRejected):
		if !s.decisionAuthentic(ctx, d) {
			return
		}
		if e = s.state.Experiment; e == nil || e.ID != d.ExperimentID || e.Status != ExperimentAwaiting {
			return // a new design superseded it while the record was read
		}
	case d.Status == ExperimentRevoked && (e.Status == ExperimentAwaiting || e.Status == ExperimentApproved):
	default:
		return
	}
	e.Status = d.Status
	e.Reason = d.Reason
	if d.Status == ExperimentApproved {
		e.ApprovedAt = d.DecidedAt
	}
	if d.ExpiresAt != "" {
		e.ExpiresAt = d.ExpiresAt
	}
	s.state.Revision++
	s.committed++
	_ = s.setGate(ctx)
}

// sessionDecisionVersion marks the change that mirrors an approval or a
// rejection only once VerifyDecision matched it with the operator
// decision record, as the experiment workflow does: a decision signal
// sent straight to the session decides nothing. Histories recorded
// before it replay trusting the signal.
const sessionDecisionVersion = "flylab-session-verified-decision"

// decisionAuthentic verifies an approval or rejection the session was
// told; a refusal is logged and recorded by the activity.
func (s *session) decisionAuthentic(ctx workflow.Context, d Decision) bool {
	if workflow.GetVersion(ctx, sessionDecisionVersion, workflow.DefaultVersion, 1) != 1 {
		return true
	}
	s.attempts++
	claim := DecisionCheck{ExperimentID: d.ExperimentID, Status: d.Status, ProtocolHash: d.ProtocolHash, DecisionID: d.DecisionID,
		ClaimedOperator: "session signal", AttemptKey: fmt.Sprintf("%s/session/%d", workflow.GetInfo(ctx).WorkflowExecution.RunID, s.attempts)}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: 10 * time.Second, MaximumAttempts: 20}})
	var v DecisionVerdict
	if err := workflow.ExecuteActivity(actx, ActivityVerifyDecision, claim).Get(ctx, &v); err != nil || !v.Authentic {
		workflow.GetLogger(ctx).Warn("decision signal refused: no authenticated operator decision backs it",
			"experiment_id", d.ExperimentID, "decision", d.Status, "decision_id", d.DecisionID, "why", v.Refusal, "error", err)
		return false
	}
	return true
}

func (s *session) setGate(ctx workflow.Context) error {
	gate := "open"
	if e := s.state.Experiment; e != nil && e.Status == ExperimentAwaiting {
		gate = "awaiting_approval"
	}
	if s.state.Bundle != nil {
		gate = "saved"
	}
	if gate == s.upserted && workflow.GetVersion(ctx, gateOnChangeVersion, workflow.DefaultVersion, 1) == 1 {
		return nil
	}
	s.upserted = gate
	return workflow.UpsertTypedSearchAttributes(ctx, platform.KindKey.ValueSet(KindSession),
		platform.ProjectKey.ValueSet(s.state.SessionID), platform.GateKey.ValueSet(gate))
}

// gateOnChangeVersion marks the change that upserts the search attributes
// only when the gate changes (every upsert is a visibility write);
// histories recorded before it replay with an upsert at every commit.
const gateOnChangeVersion = "flylab-gate-on-change"

// outageCode is the contract code of a tool whose activity ran out of
// retries: the simulation is unavailable only for a run; for any other
// tool the worker or its database did not answer and the state is
// unknown, a retryable STALE_STATE (re-inspect, then the same call).
func outageCode(tool string) string {
	if tool == ToolRun {
		return CodeSimulationUnavailable
	}
	return CodeStaleState
}

// failure builds a contract error as a workflow (validator) error.
func failure(code, message string, details map[string]any) error {
	return toolFailure(ToolFailure{Code: code, Message: message, Details: details})
}

// retryableFailure is failure for a condition that passes by itself (a
// mutation still in flight): the envelope says retryable, so an agent
// waits and sends the same call again after inspect_flylab_state.
func retryableFailure(code, message string, details map[string]any) error {
	return toolFailure(ToolFailure{Code: code, Message: message, Retryable: true, Details: details})
}

// toolFailure wraps f as a non-retryable application error: Temporal must
// not retry a rejection; f.Retryable is advice to the caller.
func toolFailure(f ToolFailure) error {
	return temporal.NewApplicationErrorWithOptions(f.Message, f.Code, temporal.ApplicationErrorOptions{
		NonRetryable: true, Details: []any{f}})
}
