package e2e

import (
	"testing"
	"time"
)

// TestFlyLabPurged_KilledWorkerCostsSessionReadsADelayNotAnError runs two
// worker processes and SIGKILLs them one after the other (a replacement
// joins each time), so the worker the session workflow is sticky to dies
// at some point: every inspect_flylab_state right after a kill still
// answers the session, because a query Temporal could not hand to a live
// worker is asked again; and a fresh key's first call needs no workflow.
func TestFlyLabPurged_KilledWorkerCostsSessionReadsADelayNotAnError(t *testing.T) {
	s, dbURL := workerlessStack(t)
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	second := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	c := loadFlyContract(t)
	call := func(tool string, args any) map[string]any { return flyTool(t, s, c, s.APIKey, tool, args) }
	cur := mustOK(t, call("inspect_flylab_state", nil))
	sid := cur["page_session_id"].(string)
	found := call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": 1,
		"query": "moonwalker descending neuron backward walking", "behavior": "backward_walking"})
	mustOK(t, found)
	read := func(after string) {
		t.Helper()
		start := time.Now()
		env := call("inspect_flylab_state", nil)
		mustOK(t, env)
		if env["page_session_id"] != sid || env["state_revision"] != found["state_revision"] {
			t.Fatalf("inspect %s: session %v revision %v, want %s %v", after, env["page_session_id"], env["state_revision"], sid, found["state_revision"])
		}
		t.Logf("inspect_flylab_state %s answered in %s", after, time.Since(start).Round(time.Millisecond))
	}
	for i, w := range []*Process{first, second} {
		w.Kill()
		read([]string{"after the first kill", "after the second kill"}[i])
		StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	}
	read("once both original workers died")
	mustOK(t, call("find_fly_circuits", map[string]any{"page_session_id": sid, "expected_state_revision": found["state_revision"],
		"query": "giant fiber", "behavior": "backward_walking"}))
}
