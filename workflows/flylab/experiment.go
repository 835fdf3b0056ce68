package flylab

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/platform"
)

// ApprovalWait bounds how long an experiment waits at the operator gate,
// and (since authenticatedGateVersion) how long an approval stays usable
// before the experiment runs.
const ApprovalWait = 30 * 24 * time.Hour

// authenticatedGateVersion marks the change that opens or closes the gate
// only on a decision the API authenticated (verified in an activity
// against the operator decision record), tells the session when the gate
// or an unused approval expires, and lets an approval lapse after
// ApprovalWait. Histories recorded before it replay with bare signals.
const authenticatedGateVersion = "flylab-authenticated-gate"

// Reasons recorded when a timer closes the gate.
const (
	reasonGateExpired     = "approval wait expired"
	reasonApprovalExpired = "approval expired before the experiment ran"
)

type experiment struct {
	in         ExperimentInput
	status     ExperimentStatus
	version    workflow.Version
	attempts   int
	decisionID string // the verified operator decision record
}

// Experiment is the workflow of one designed trial
// (flylab-experiment/<experiment_id>). It waits at the operator gate for an
// approve signal carrying the exact protocol hash and naming the operator
// decision the API recorded, or such a reject, or a revoke from its
// session; records the decision through an activity; tells the session;
// and, once approved, waits until its one run commits, a new design
// revokes it, or the approval expires.
func Experiment(ctx workflow.Context, in ExperimentInput) (ExperimentStatus, error) {
	e := &experiment{in: in, status: ExperimentStatus{ExperimentID: in.ExperimentID, SessionID: in.SessionID,
		Status: ExperimentAwaiting, ProtocolHash: in.ProtocolHash}}
	if err := workflow.SetQueryHandler(ctx, StateQuery, func() (ExperimentStatus, error) { return e.status, nil }); err != nil {
		return e.status, err
	}
	e.version = workflow.GetVersion(ctx, authenticatedGateVersion, workflow.DefaultVersion, 1)
	if err := e.setGate(ctx); err != nil {
		return e.status, err
	}
	if err := e.waitForOperatorDecision(ctx); err != nil || e.status.Status != ExperimentApproved {
		return e.status, err
	}
	return e.status, e.waitForRunOrRevocation(ctx)
}

func (e *experiment) authenticated() bool { return e.version >= 1 }

func (e *experiment) setGate(ctx workflow.Context) error {
	return workflow.UpsertTypedSearchAttributes(ctx, platform.KindKey.ValueSet(KindTrial),
		platform.ProjectKey.ValueSet(e.in.SessionID), platform.GateKey.ValueSet(e.status.Status))
}

// waitForOperatorDecision is the human gate: a selector over the approve,
// reject and revoke channels and a timer. An approve or reject decides
// only once VerifyDecision matched it with the operator decision record
// (verify); an approval naming another hash approves nothing.
func (e *experiment) waitForOperatorDecision(ctx workflow.Context) error {
	approveCh := workflow.GetSignalChannel(ctx, ApproveSignal)
	rejectCh := workflow.GetSignalChannel(ctx, RejectSignal)
	revokeCh := workflow.GetSignalChannel(ctx, RevokeSignal)
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	timer := workflow.NewTimer(timerCtx, ApprovalWait)
	for e.status.Status == ExperimentAwaiting {
		var decided DecisionRecord
		var claim *DecisionCheck
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(approveCh, func(c workflow.ReceiveChannel, _ bool) {
			var a Approve
			c.Receive(ctx, &a)
			switch {
			case e.authenticated():
				claim = &DecisionCheck{Status: ExperimentApproved, ProtocolHash: a.ProtocolHash, DecisionID: a.DecisionID, ClaimedOperator: a.Operator}
			case a.ProtocolHash == e.in.ProtocolHash:
				// An experiment started before authenticated gates: the
				// decision id still goes on to the session, which verifies it.
				decided = DecisionRecord{Status: ExperimentApproved, DecidedBy: a.Operator}
				e.decisionID = a.DecisionID
			}
		})
		sel.AddReceive(rejectCh, func(c workflow.ReceiveChannel, _ bool) {
			var r Reject
			c.Receive(ctx, &r)
			if e.authenticated() {
				claim = &DecisionCheck{Status: ExperimentRejected, ProtocolHash: e.in.ProtocolHash, DecisionID: r.DecisionID, ClaimedOperator: r.Operator}
				return
			}
			decided = DecisionRecord{Status: ExperimentRejected, DecidedBy: r.Operator, Reason: r.Reason}
			e.decisionID = r.DecisionID
		})
		sel.AddReceive(revokeCh, func(c workflow.ReceiveChannel, _ bool) {
			var reason string
			c.Receive(ctx, &reason)
			decided = DecisionRecord{Status: ExperimentRevoked, DecidedBy: "session", Reason: reason}
		})
		sel.AddFuture(timer, func(workflow.Future) {
			decided = DecisionRecord{Status: ExperimentRevoked, DecidedBy: "timer", Reason: reasonGateExpired}
		})
		sel.Select(ctx)
		if claim != nil {
			verdict := e.verify(ctx, *claim)
			if !verdict.Authentic {
				continue
			}
			decided = DecisionRecord{Status: claim.Status, DecidedBy: verdict.Operator, Reason: verdict.Reason}
			e.decisionID = claim.DecisionID
		}
		if decided.Status == "" {
			continue
		}
		if err := e.record(ctx, decided); err != nil {
			return err
		}
		if decided.Status != ExperimentRevoked || (e.authenticated() && decided.DecidedBy == "timer") {
			e.tellSession(ctx)
		}
	}
	return nil
}

// waitForRunOrRevocation keeps an approved experiment open until its one
// run commits (RanSignal), a new design revokes the approval, or (since
// authenticatedGateVersion) the approval expires unused, which the
// session is told.
func (e *experiment) waitForRunOrRevocation(ctx workflow.Context) error {
	ranCh := workflow.GetSignalChannel(ctx, RanSignal)
	revokeCh := workflow.GetSignalChannel(ctx, RevokeSignal)
	var next DecisionRecord
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(ranCh, func(c workflow.ReceiveChannel, _ bool) {
		var batchID string
		c.Receive(ctx, &batchID)
		e.status.BatchID = batchID
		next = DecisionRecord{Status: ExperimentRan, DecidedBy: "session", Reason: "batch " + batchID}
	})
	sel.AddReceive(revokeCh, func(c workflow.ReceiveChannel, _ bool) {
		var reason string
		c.Receive(ctx, &reason)
		next = DecisionRecord{Status: ExperimentRevoked, DecidedBy: "session", Reason: reason}
	})
	if e.authenticated() {
		timerCtx, cancelTimer := workflow.WithCancel(ctx)
		defer cancelTimer()
		sel.AddFuture(workflow.NewTimer(timerCtx, e.approvalLeft(ctx)), func(workflow.Future) {
			next = DecisionRecord{Status: ExperimentRevoked, DecidedBy: "timer", Reason: reasonApprovalExpired}
		})
	}
	sel.Select(ctx)
	if err := e.record(ctx, next); err != nil {
		return err
	}
	if next.DecidedBy == "timer" {
		e.tellSession(ctx)
	}
	return nil
}

// approvalLeft is how long the approval stays usable from now.
func (e *experiment) approvalLeft(ctx workflow.Context) time.Duration {
	at, err := time.Parse(time.RFC3339Nano, e.status.DecidedAt)
	if err != nil {
		return ApprovalWait
	}
	return max(time.Second, at.Add(ApprovalWait).Sub(workflow.Now(ctx)))
}

// record persists a decision (the approval record for an approval) and
// moves the gate. The activity is keyed by experiment and status.
func (e *experiment) record(ctx workflow.Context, d DecisionRecord) error {
	d.ExperimentID = e.in.ExperimentID
	d.ProtocolHash = e.in.ProtocolHash
	d.DecidedAt = workflow.Now(ctx).UTC().Format(time.RFC3339Nano)
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: 10 * time.Second},
	})
	if err := workflow.ExecuteActivity(actx, ActivityRecordDecision, d).Get(ctx, nil); err != nil {
		return err
	}
	batchID := e.status.BatchID
	e.status = ExperimentStatus{ExperimentID: e.in.ExperimentID, SessionID: e.in.SessionID, Status: d.Status,
		ProtocolHash: e.in.ProtocolHash, DecidedAt: d.DecidedAt, DecidedBy: d.DecidedBy, Reason: d.Reason, BatchID: batchID}
	if e.authenticated() && d.Status == ExperimentApproved {
		e.status.ExpiresAt = workflow.Now(ctx).UTC().Add(ApprovalWait).Format(time.RFC3339Nano)
	}
	return e.setGate(ctx)
}

// tellSession signals the session; a closed session is not an error.
func (e *experiment) tellSession(ctx workflow.Context) {
	d := Decision{ExperimentID: e.in.ExperimentID, Status: e.status.Status, ProtocolHash: e.in.ProtocolHash,
		DecidedAt: e.status.DecidedAt, Reason: e.status.Reason, ExpiresAt: e.status.ExpiresAt, DecisionID: e.decisionID}
	_ = workflow.SignalExternalWorkflow(ctx, e.in.SessionWorkflowID, "", DecisionSignal, d).Get(ctx, nil)
}

// verify asks VerifyDecision whether a gate signal names the operator
// decision the API recorded for this experiment. A refused signal is
// logged here and recorded by the activity; the gate stays as it was.
func (e *experiment) verify(ctx workflow.Context, claim DecisionCheck) DecisionVerdict {
	e.attempts++
	claim.ExperimentID = e.in.ExperimentID
	claim.AttemptKey = fmt.Sprintf("%s/%d", workflow.GetInfo(ctx).WorkflowExecution.RunID, e.attempts)
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: 10 * time.Second,
			MaximumAttempts: 20},
	})
	var v DecisionVerdict
	if err := workflow.ExecuteActivity(actx, ActivityVerifyDecision, claim).Get(ctx, &v); err != nil {
		v = DecisionVerdict{Refusal: "the decision record could not be read: " + err.Error()}
	}
	if !v.Authentic {
		workflow.GetLogger(ctx).Warn("gate signal refused: no authenticated operator decision backs it",
			"experiment_id", e.in.ExperimentID, "decision", claim.Status, "decision_id", claim.DecisionID,
			"claimed_operator", claim.ClaimedOperator, "why", v.Refusal)
	}
	return v
}
