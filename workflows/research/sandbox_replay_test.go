package research

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplay_SandboxHistories replays the sandbox histories recorded by
// the end-to-end sandbox test (GATEHOUSE_RECORD_HISTORIES=1): a
// non-deterministic change to the sandbox workflow fails here.
func TestReplay_SandboxHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "sandbox-histories", "*.json"))
	if err != nil || len(files) < 1 {
		t.Fatalf("want at least 1 recorded sandbox history, found %d: %v", len(files), err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Sandbox, workflow.RegisterOptions{Name: SandboxWorkflowName})
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
