package flylab

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplay_RecordedHistories replays histories recorded from the
// end-to-end test (GATEHOUSE_RECORD_HISTORIES=1): a non-deterministic
// change to either workflow fails here.
func TestReplay_RecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded histories: %v", err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Session, workflow.RegisterOptions{Name: SessionWorkflow})
	r.RegisterWorkflowWithOptions(Experiment, workflow.RegisterOptions{Name: ExperimentWorkflow})
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
