package research

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplay_SandboxInspectHistories replays the inspections recorded by
// the end-to-end split api/worker sandbox test: one that answered and one
// that a refused path (a missing or escaping file) failed.
func TestReplay_SandboxInspectHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "sandbox-inspect-histories", "*.json"))
	if err != nil || len(files) < 2 {
		t.Fatalf("want 2 recorded inspection histories, found %d: %v", len(files), err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(SandboxInspect, workflow.RegisterOptions{Name: SandboxInspectWorkflowName})
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
