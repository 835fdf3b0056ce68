package research

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
)

func TestStorageSweep_BatchesUntilAShortBatchAtTheRunsStartTime(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	env.SetStartTime(start)
	calls := 0
	env.RegisterActivityWithOptions(func(_ context.Context, in SweepInput) (SweepResult, error) {
		calls++
		if !in.Now.Equal(start) || in.Limit != StorageSweepBatch {
			t.Errorf("batch %d asked for %+v", calls, in)
		}
		if calls == 1 {
			return SweepResult{Expired: StorageSweepBatch, Reclaimed: 3}, nil
		}
		return SweepResult{Expired: 7, Reclaimed: 1}, nil
	}, activity.RegisterOptions{Name: SweepStorageActivity})
	env.ExecuteWorkflow(StorageSweep)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var got SweepResult
	if err := env.GetWorkflowResult(&got); err != nil {
		t.Fatal(err)
	}
	if calls != 2 || got != (SweepResult{Expired: StorageSweepBatch + 7, Reclaimed: 4}) {
		t.Fatalf("%d calls, result %+v", calls, got)
	}
}
