package research

import "testing"

// TestReplay_RecordedHistories replays the experiment histories recorded
// by the end-to-end research tests (GATEHOUSE_RECORD_HISTORIES=1): a
// non-deterministic change to the experiment workflow fails here.
func TestReplay_RecordedHistories(t *testing.T) {
	replayRecorded(t, "histories/*.json", 2, map[string]any{ExperimentWorkflowName: Experiment, ReflectionWorkflowName: Reflection})
}

// TestReplay_ReflectionHistories replays the reflection wave histories
// recorded by the end-to-end reflection test.
func TestReplay_ReflectionHistories(t *testing.T) {
	replayRecorded(t, "histories/reflection-*.json", 1, map[string]any{ReflectionWorkflowName: Reflection})
}

// TestReplay_SandboxHistories replays the sandbox histories recorded by
// the end-to-end sandbox tests.
func TestReplay_SandboxHistories(t *testing.T) {
	replayRecorded(t, "sandbox-histories/*.json", 1, map[string]any{SandboxWorkflowName: Sandbox})
}

// TestReplay_SandboxInspectHistories replays the inspections recorded by
// the end-to-end split api/worker sandbox test: one that answered and one
// that a refused path (a missing or escaping file) failed.
func TestReplay_SandboxInspectHistories(t *testing.T) {
	replayRecorded(t, "sandbox-inspect-histories/*.json", 2, map[string]any{SandboxInspectWorkflowName: SandboxInspect})
}

// TestReplay_StorageSweepHistories replays the storage sweep histories
// recorded by the end-to-end storage test.
func TestReplay_StorageSweepHistories(t *testing.T) {
	replayRecorded(t, "sweep-histories/*.json", 1, map[string]any{StorageSweepWorkflowName: StorageSweep})
}
