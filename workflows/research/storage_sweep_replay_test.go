package research

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplay_StorageSweepHistories replays the storage sweep histories
// recorded by the end-to-end storage test (GATEHOUSE_RECORD_HISTORIES=1).
func TestReplay_StorageSweepHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "sweep-histories", "*.json"))
	if err != nil || len(files) < 1 {
		t.Fatalf("want at least 1 recorded sweep history, found %d: %v", len(files), err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(StorageSweep, workflow.RegisterOptions{Name: StorageSweepWorkflowName})
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
