package flylab

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
)

func runExperiment(t *testing.T, signals func(send func(name string, arg any))) (ExperimentStatus, []DecisionRecord) {
	env := newEnv(t)
	var recorded []DecisionRecord
	env.RegisterActivityWithOptions(func(_ context.Context, d DecisionRecord) error {
		recorded = append(recorded, d)
		return nil
	}, activity.RegisterOptions{Name: ActivityRecordDecision})
	env.OnSignalExternalWorkflow(mock.Anything, "flylab-session/session_a", "", DecisionSignal, mock.Anything).Return(nil)
	env.RegisterDelayedCallback(func() {
		signals(func(name string, arg any) { env.SignalWorkflow(name, arg) })
	}, time.Minute)
	env.ExecuteWorkflow(Experiment, ExperimentInput{ExperimentID: "exp_1", SessionID: "session_a", ProtocolHash: testHash,
		SessionWorkflowID: "flylab-session/session_a"})
	if !env.IsWorkflowCompleted() {
		t.Fatal("experiment workflow did not complete")
	}
	var st ExperimentStatus
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	return st, recorded
}

func TestExperiment_ApprovalSignalWithExactHashApproves(t *testing.T) {
	st, rec := runExperiment(t, func(send func(string, any)) {
		send(ApproveSignal, Approve{ProtocolHash: "sha256:wrong", Operator: "eve"})
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice"})
		send(RanSignal, "batch_1")
	})
	if st.Status != ExperimentRan || st.BatchID != "batch_1" || len(rec) != 2 || rec[0].Status != ExperimentApproved || rec[0].DecidedBy != "alice" {
		t.Fatalf("status %+v records %+v", st, rec)
	}
}

func TestExperiment_RejectionEndsTheGate(t *testing.T) {
	st, rec := runExperiment(t, func(send func(string, any)) {
		send(RejectSignal, Reject{Reason: "drive too strong", Operator: "alice"})
	})
	if st.Status != ExperimentRejected || st.Reason != "drive too strong" || len(rec) != 1 {
		t.Fatalf("status %+v records %+v", st, rec)
	}
}

func TestExperiment_ApprovalRevokedWhenProtocolChanges(t *testing.T) {
	st, rec := runExperiment(t, func(send func(string, any)) {
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice"})
		send(RevokeSignal, "superseded by exp_2")
	})
	if st.Status != ExperimentRevoked || len(rec) != 2 || rec[1].Status != ExperimentRevoked {
		t.Fatalf("status %+v records %+v", st, rec)
	}
}
