package flywheel

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// TestRollout_LostOutputNoticeIsFoundAtLeaseExpiry: the API answers an
// output once the row accepted it and tells the workflow off the request
// path; when that notice never arrives, the lease timer's ExpireLease
// reads the accepted output and the rollout completes, not re-queues.
func TestRollout_LostOutputNoticeIsFoundAtLeaseExpiry(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	env.SetStartTime(start)
	var expired []ExpireLeaseInput
	var finalized []FinalizeInput
	env.RegisterWorkflowWithOptions(Rollout, workflow.RegisterOptions{Name: RolloutWorkflow})
	env.RegisterActivityWithOptions(func(_ context.Context, in ExpireLeaseInput) (ExpireLeaseResult, error) {
		expired = append(expired, in)
		return ExpireLeaseResult{Outcome: ExpiryOutput}, nil // the row holds the output of this lease
	}, activity.RegisterOptions{Name: ExpireLeaseActivity})
	env.RegisterActivityWithOptions(func(_ context.Context, in FinalizeInput) (FinalizeResult, error) {
		finalized = append(finalized, in)
		return FinalizeResult{Status: in.Status, Reason: in.Reason}, nil
	}, activity.RegisterOptions{Name: FinalizeActivity})
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(LeaseSignal, LeaseUpdate{Epoch: 1, ExpiresAt: env.Now().Add(30 * time.Second)})
	}, time.Second)
	// The output lands in the database at 10 s; its notice is lost.
	env.ExecuteWorkflow(RolloutWorkflow, RolloutInput{RolloutID: "ro_lost", DeadlineAt: start.Add(time.Hour)})
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	var st Status
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	if len(expired) != 1 || expired[0].Epoch != 1 || len(finalized) != 1 || finalized[0].Status != StatusCompleted {
		t.Fatalf("want one expiry check that finds the output and a completed rollout; expired %+v, finalized %+v", expired, finalized)
	}
	if env.Now().Sub(start) > 32*time.Second {
		t.Fatalf("completed at %s, long after the lease expiry", env.Now().Sub(start))
	}
}
