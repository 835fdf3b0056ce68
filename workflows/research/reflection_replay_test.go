package research

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplay_ReflectionHistories replays the reflection wave histories
// recorded by the end-to-end reflection test (GATEHOUSE_RECORD_HISTORIES=1):
// a non-deterministic change to the reflection workflow fails here.
func TestReplay_ReflectionHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "reflection-*.json"))
	if err != nil || len(files) < 1 {
		t.Fatalf("want at least 1 recorded reflection history, found %d: %v", len(files), err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Reflection, workflow.RegisterOptions{Name: ReflectionWorkflowName})
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
