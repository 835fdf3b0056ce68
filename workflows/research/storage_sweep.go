package research

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the storage sweep: a Temporal Schedule starts the workflow,
// which expires unpinned objects past their retention through an activity.
const (
	// StorageSweepWorkflowName is the registered workflow type.
	StorageSweepWorkflowName = "research.StorageSweep"
	// SweepStorageActivity expires one batch of objects and reclaims bytes.
	SweepStorageActivity = "research.SweepStorage"
	// StorageSweepScheduleID is the schedule that starts the sweep.
	StorageSweepScheduleID = "research-storage-sweep"
	// StorageSweepWorkflowIDPrefix starts the workflow IDs the schedule uses.
	StorageSweepWorkflowIDPrefix = "research-storage-sweep"
	// StorageSweepBatch bounds the rows one activity call expires.
	StorageSweepBatch = 500
	// storageSweepMaxBatches bounds one run; the next run picks up the rest.
	storageSweepMaxBatches = 20
)

// SweepInput asks for one batch: objects due at Now (the workflow's
// deterministic time), at most Limit of them.
type SweepInput struct {
	Now   time.Time
	Limit int
}

// SweepResult counts what a batch or a whole run did.
type SweepResult struct {
	Expired   int
	Reclaimed int
}

// StorageSweep expires every object due at the run's start time, in
// batches, and reclaims bytes no live object references.
func StorageSweep(ctx workflow.Context) (SweepResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 5},
	})
	now := workflow.Now(ctx)
	var total SweepResult
	for i := 0; i < storageSweepMaxBatches; i++ {
		var r SweepResult
		if err := workflow.ExecuteActivity(ctx, SweepStorageActivity, SweepInput{Now: now, Limit: StorageSweepBatch}).Get(ctx, &r); err != nil {
			return total, err
		}
		total.Expired += r.Expired
		total.Reclaimed += r.Reclaimed
		if r.Expired < StorageSweepBatch {
			break
		}
	}
	workflow.GetLogger(ctx).Info("storage sweep finished", "expired", total.Expired, "reclaimed", total.Reclaimed)
	return total, nil
}
