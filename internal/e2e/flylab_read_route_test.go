package e2e

import (
	"testing"
	"time"
)

// TestFlyLab_InspectSeesARunInProgressAndItsCommit: inspect answers from
// the stored snapshot, yet a run_fly_simulation in progress shows as
// running to an inspect (a second connection, and on the production
// topology another api replica), and the moment the run answers, inspect
// shows its revision.
func TestFlyLab_InspectSeesARunInProgressAndItsCommit(t *testing.T) {
	t.Parallel()
	checkInspectDuringRun(t, withAgentKey(t, Shared(t), "flylab-read-route"))
}

func checkInspectDuringRun(t *testing.T, s *Stack) {
	c := loadFlyContract(t)
	a := approveFlyExperiment(t, s, c, nil)
	inspect := func() map[string]any { return flyTool(t, s, c, s.APIKey, "inspect_flylab_state", nil) }
	ran := make(chan map[string]any, 1)
	go func() { ran <- flyTool(t, s, c, s.APIKey, "run_fly_simulation", a.runArgs(a.rev, "read-route-run")) }()
	sawRunning := false
	var env map[string]any
	for waiting := true; waiting; {
		select {
		case env = <-ran:
			waiting = false
		default:
			if agentContext(inspect())["agent_status"] == "running" {
				sawRunning = true
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	mustOK(t, env)
	if !sawRunning {
		t.Fatal("no inspect saw the simulation in progress")
	}
	after := inspect()
	if after["state_revision"] != env["state_revision"] || agentContext(after)["agent_status"] == "running" {
		t.Fatalf("inspect right after the run answered revision %v (%v), want %v and nothing running",
			after["state_revision"], agentContext(after)["agent_status"], env["state_revision"])
	}
}
