package flylab

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// decisionBook plays the operator decision records the API writes: the
// VerifyDecision activity finds a signal authentic only when its decision
// id names a record for the same decision and hash.
type decisionBook struct {
	records map[string]bookedDecision
	refused []DecisionCheck
}

type bookedDecision struct {
	status, hash, operator, reason string
}

func (b *decisionBook) verify(_ context.Context, c DecisionCheck) (DecisionVerdict, error) {
	r, ok := b.records[c.DecisionID]
	if !ok || r.status != c.Status || r.hash != c.ProtocolHash || c.ExperimentID != "exp_1" {
		b.refused = append(b.refused, c)
		return DecisionVerdict{Refusal: "no matching operator decision record"}, nil
	}
	return DecisionVerdict{Authentic: true, Operator: r.operator, Reason: r.reason}, nil
}

// experimentRun is one experiment workflow under test.
type experimentRun struct {
	env      *testsuite.TestWorkflowEnvironment
	book     *decisionBook
	recorded []DecisionRecord
	told     []Decision
}

func newExperimentRun(t *testing.T) *experimentRun {
	r := &experimentRun{env: newEnv(t), book: &decisionBook{records: map[string]bookedDecision{
		"decision_alice_approves": {status: ExperimentApproved, hash: testHash, operator: "alice"},
		"decision_alice_rejects":  {status: ExperimentRejected, hash: testHash, operator: "alice", reason: "drive too strong"},
	}}}
	r.env.RegisterActivityWithOptions(func(_ context.Context, d DecisionRecord) error {
		r.recorded = append(r.recorded, d)
		return nil
	}, activity.RegisterOptions{Name: ActivityRecordDecision})
	r.env.RegisterActivityWithOptions(r.book.verify, activity.RegisterOptions{Name: ActivityVerifyDecision})
	r.env.OnSignalExternalWorkflow(mock.Anything, "flylab-session/session_a", "", DecisionSignal, mock.Anything).Return(
		func(_, _, _, _ string, arg any) error {
			r.told = append(r.told, arg.(Decision))
			return nil
		})
	return r
}

func (r *experimentRun) execute(t *testing.T, signals func(send func(name string, arg any))) ExperimentStatus {
	r.env.RegisterDelayedCallback(func() {
		signals(func(name string, arg any) { r.env.SignalWorkflow(name, arg) })
	}, time.Minute)
	r.env.ExecuteWorkflow(Experiment, ExperimentInput{ExperimentID: "exp_1", SessionID: "session_a", ProtocolHash: testHash,
		SessionWorkflowID: "flylab-session/session_a"})
	if !r.env.IsWorkflowCompleted() {
		t.Fatal("experiment workflow did not complete")
	}
	var st ExperimentStatus
	if err := r.env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestExperiment_ApprovalSignalWithExactHashApproves(t *testing.T) {
	r := newExperimentRun(t)
	st := r.execute(t, func(send func(string, any)) {
		send(ApproveSignal, Approve{ProtocolHash: "sha256:wrong", Operator: "alice", DecisionID: "decision_alice_approves"})
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice", DecisionID: "decision_alice_approves"})
		send(RanSignal, "batch_1")
	})
	rec := r.recorded
	if st.Status != ExperimentRan || st.BatchID != "batch_1" || len(rec) != 2 || rec[0].Status != ExperimentApproved || rec[0].DecidedBy != "alice" {
		t.Fatalf("status %+v records %+v", st, rec)
	}
	if len(r.told) != 1 || r.told[0].Status != ExperimentApproved || r.told[0].ExpiresAt == "" || r.told[0].DecisionID != "decision_alice_approves" {
		t.Fatalf("session told %+v, want one approval with its expiry", r.told)
	}
}

// TestExperiment_ForgedApprovalWithCorrectValuesLeavesTheGateClosed sends
// the approval signal as anyone who reaches the Temporal frontend could:
// the exact protocol hash and a real operator's name, but no decision the
// API authenticated (none, or a made-up decision id, or the id of the
// operator's rejection). The gate stays closed and every attempt is
// refused (and so recorded); the operator's real approval then opens it,
// and the operator recorded is the record's, not the signal's.
func TestExperiment_ForgedApprovalWithCorrectValuesLeavesTheGateClosed(t *testing.T) {
	r := newExperimentRun(t)
	var afterForgery ExperimentStatus
	var toldAfterForgery, refusedAfterForgery int
	r.env.RegisterDelayedCallback(func() {
		v, err := r.env.QueryWorkflow(StateQuery)
		if err == nil {
			_ = v.Get(&afterForgery)
		}
		toldAfterForgery, refusedAfterForgery = len(r.told), len(r.book.refused)
		r.env.SignalWorkflow(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "mallory", DecisionID: "decision_alice_approves"})
		r.env.SignalWorkflow(RanSignal, "batch_1")
	}, 2*time.Minute)
	st := r.execute(t, func(send func(string, any)) {
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice"})
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice", DecisionID: "decision_made_up"})
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice", DecisionID: "decision_alice_rejects"})
	})
	if afterForgery.Status != ExperimentAwaiting || refusedAfterForgery != 3 || toldAfterForgery != 0 {
		t.Fatalf("after forged approvals: status %+v, refused %d, session told %d times", afterForgery, refusedAfterForgery, toldAfterForgery)
	}
	if st.Status != ExperimentRan || r.recorded[0].Status != ExperimentApproved || r.recorded[0].DecidedBy != "alice" {
		t.Fatalf("status %+v records %+v", st, r.recorded)
	}
}

func TestExperiment_RejectionEndsTheGate(t *testing.T) {
	r := newExperimentRun(t)
	st := r.execute(t, func(send func(string, any)) {
		send(RejectSignal, Reject{Reason: "forged", Operator: "alice"})
		send(RejectSignal, Reject{Reason: "signal text", Operator: "alice", DecisionID: "decision_alice_rejects"})
	})
	if st.Status != ExperimentRejected || st.Reason != "drive too strong" || len(r.recorded) != 1 || len(r.book.refused) != 1 {
		t.Fatalf("status %+v records %+v refused %d", st, r.recorded, len(r.book.refused))
	}
}

func TestExperiment_ApprovalRevokedWhenProtocolChanges(t *testing.T) {
	r := newExperimentRun(t)
	st := r.execute(t, func(send func(string, any)) {
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice", DecisionID: "decision_alice_approves"})
		send(RevokeSignal, "superseded by exp_2")
	})
	if st.Status != ExperimentRevoked || len(r.recorded) != 2 || r.recorded[1].Status != ExperimentRevoked {
		t.Fatalf("status %+v records %+v", st, r.recorded)
	}
}

// TestExperiment_UnusedApprovalExpiresAndTheSessionIsTold approves and
// never runs: after ApprovalWait the approval lapses, and the session is
// told (it then refuses the run and proposes a new design).
func TestExperiment_UnusedApprovalExpiresAndTheSessionIsTold(t *testing.T) {
	r := newExperimentRun(t)
	st := r.execute(t, func(send func(string, any)) {
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice", DecisionID: "decision_alice_approves"})
	})
	if st.Status != ExperimentRevoked || st.Reason != reasonApprovalExpired {
		t.Fatalf("status %+v", st)
	}
	if len(r.told) != 2 || r.told[1].Status != ExperimentRevoked || r.told[1].Reason != reasonApprovalExpired {
		t.Fatalf("session told %+v", r.told)
	}
}

// TestExperiment_GateExpiryIsToldToTheSession leaves the gate undecided
// for ApprovalWait: the experiment is revoked and the session told.
func TestExperiment_GateExpiryIsToldToTheSession(t *testing.T) {
	r := newExperimentRun(t)
	st := r.execute(t, func(func(string, any)) {})
	if st.Status != ExperimentRevoked || st.Reason != reasonGateExpired || len(r.told) != 1 || r.told[0].Status != ExperimentRevoked {
		t.Fatalf("status %+v told %+v", st, r.told)
	}
}

// TestExperiment_StartedBeforeAuthenticatedGatesPassesTheDecisionIDOn: an
// experiment whose history predates authenticated gates still decides on
// the signal, but hands the decision id to the session, which verifies it
// (so a session running the new code does not refuse a real approval).
func TestExperiment_StartedBeforeAuthenticatedGatesPassesTheDecisionIDOn(t *testing.T) {
	r := newExperimentRun(t)
	r.env.OnGetVersion(authenticatedGateVersion, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	st := r.execute(t, func(send func(string, any)) {
		send(ApproveSignal, Approve{ProtocolHash: testHash, Operator: "alice", DecisionID: "decision_alice_approves"})
		send(RanSignal, "batch_1")
	})
	if st.Status != ExperimentRan || len(r.told) != 1 || r.told[0].DecisionID != "decision_alice_approves" || len(r.book.refused) != 0 {
		t.Fatalf("status %+v told %+v", st, r.told)
	}
}
