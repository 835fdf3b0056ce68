package research

import "testing"

// TestReplay_SandboxReaperHistories replays the reaper runs recorded by
// the end-to-end orphan test.
func TestReplay_SandboxReaperHistories(t *testing.T) {
	replayRecorded(t, "sandbox-reaper-histories/*.json", 1, map[string]any{SandboxReaperWorkflowName: SandboxReaper})
}
