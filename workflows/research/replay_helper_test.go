package research

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// replayRecorded replays every history under testdata matching pattern,
// wanting at least atLeast of them, with the workflows wfs registered
// under their names: a non-deterministic change to one fails the test.
func replayRecorded(t *testing.T, pattern string, atLeast int, wfs map[string]any) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", filepath.FromSlash(pattern)))
	if err != nil || len(files) < atLeast {
		t.Fatalf("want at least %d recorded histories matching %s, found %d: %v", atLeast, pattern, len(files), err)
	}
	r := worker.NewWorkflowReplayer()
	for name, fn := range wfs {
		r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name})
	}
	for _, f := range files {
		if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
