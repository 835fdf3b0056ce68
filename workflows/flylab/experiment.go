package flylab

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/gatehouse/gatehouse/workflows/platform"
)

// ApprovalWait bounds how long an experiment waits at the operator gate.
const ApprovalWait = 30 * 24 * time.Hour

type experiment struct {
	in     ExperimentInput
	status ExperimentStatus
}

// Experiment is the workflow of one designed trial
// (flylab-experiment/<experiment_id>). It waits at the operator gate for an
// approve signal carrying the exact protocol hash, or a reject, or a revoke
// from its session; records the decision through an activity; tells the
// session; and, once approved, waits until its one run commits or a new
// design revokes it.
func Experiment(ctx workflow.Context, in ExperimentInput) (ExperimentStatus, error) {
	e := &experiment{in: in, status: ExperimentStatus{ExperimentID: in.ExperimentID, SessionID: in.SessionID,
		Status: ExperimentAwaiting, ProtocolHash: in.ProtocolHash}}
	if err := workflow.SetQueryHandler(ctx, StateQuery, func() (ExperimentStatus, error) { return e.status, nil }); err != nil {
		return e.status, err
	}
	if err := e.setGate(ctx); err != nil {
		return e.status, err
	}
	if err := e.waitForOperatorDecision(ctx); err != nil || e.status.Status != ExperimentApproved {
		return e.status, err
	}
	return e.status, e.waitForRunOrRevocation(ctx)
}

func (e *experiment) setGate(ctx workflow.Context) error {
	return workflow.UpsertTypedSearchAttributes(ctx, platform.KindKey.ValueSet(KindTrial),
		platform.ProjectKey.ValueSet(e.in.SessionID), platform.GateKey.ValueSet(e.status.Status))
}

// waitForOperatorDecision is the human gate: a selector over the approve,
// reject and revoke channels and a timer. An approval naming another hash
// is ignored: it approves nothing.
func (e *experiment) waitForOperatorDecision(ctx workflow.Context) error {
	approveCh := workflow.GetSignalChannel(ctx, ApproveSignal)
	rejectCh := workflow.GetSignalChannel(ctx, RejectSignal)
	revokeCh := workflow.GetSignalChannel(ctx, RevokeSignal)
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	timer := workflow.NewTimer(timerCtx, ApprovalWait)
	for e.status.Status == ExperimentAwaiting {
		var decided DecisionRecord
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(approveCh, func(c workflow.ReceiveChannel, _ bool) {
			var a Approve
			c.Receive(ctx, &a)
			if a.ProtocolHash == e.in.ProtocolHash {
				decided = DecisionRecord{Status: ExperimentApproved, DecidedBy: a.Operator}
			}
		})
		sel.AddReceive(rejectCh, func(c workflow.ReceiveChannel, _ bool) {
			var r Reject
			c.Receive(ctx, &r)
			decided = DecisionRecord{Status: ExperimentRejected, DecidedBy: r.Operator, Reason: r.Reason}
		})
		sel.AddReceive(revokeCh, func(c workflow.ReceiveChannel, _ bool) {
			var reason string
			c.Receive(ctx, &reason)
			decided = DecisionRecord{Status: ExperimentRevoked, DecidedBy: "session", Reason: reason}
		})
		sel.AddFuture(timer, func(workflow.Future) {
			decided = DecisionRecord{Status: ExperimentRevoked, DecidedBy: "timer", Reason: "approval wait expired"}
		})
		sel.Select(ctx)
		if decided.Status == "" {
			continue
		}
		if err := e.record(ctx, decided); err != nil {
			return err
		}
		if decided.Status != ExperimentRevoked {
			e.tellSession(ctx)
		}
	}
	return nil
}

// waitForRunOrRevocation keeps an approved experiment open until its one
// run commits (RanSignal) or a new design revokes the approval.
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
	sel.Select(ctx)
	return e.record(ctx, next)
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
	return e.setGate(ctx)
}

// tellSession signals the session; a closed session is not an error.
func (e *experiment) tellSession(ctx workflow.Context) {
	d := Decision{ExperimentID: e.in.ExperimentID, Status: e.status.Status, ProtocolHash: e.in.ProtocolHash,
		DecidedAt: e.status.DecidedAt, Reason: e.status.Reason}
	_ = workflow.SignalExternalWorkflow(ctx, e.in.SessionWorkflowID, "", DecisionSignal, d).Get(ctx, nil)
}
