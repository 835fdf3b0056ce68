package platform

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplay_PingHistories replays the ping histories recorded by the
// end-to-end tests (GATEHOUSE_RECORD_HISTORIES=1): a round trip, and a
// held ping answered after the dev stack restarted.
func TestReplay_PingHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil || len(files) < 2 {
		t.Fatalf("want at least 2 recorded ping histories, found %d: %v", len(files), err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Ping, workflow.RegisterOptions{Name: PingWorkflow})
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
