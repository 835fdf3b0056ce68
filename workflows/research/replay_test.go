package research

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplay_RecordedHistories replays the experiment histories recorded
// by the end-to-end research tests (GATEHOUSE_RECORD_HISTORIES=1): a
// non-deterministic change to the experiment workflow fails here.
func TestReplay_RecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil || len(files) < 2 {
		t.Fatalf("want at least 2 recorded histories, found %d: %v", len(files), err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Experiment, workflow.RegisterOptions{Name: ExperimentWorkflowName})
	r.RegisterWorkflowWithOptions(Reflection, workflow.RegisterOptions{Name: ReflectionWorkflowName})
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
