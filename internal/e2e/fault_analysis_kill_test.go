package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestFault_WorkerKilledWhileAnalysisQueuedYieldsOneAnalysis SIGKILLs the
// worker, asks for the analysis while no worker runs, then starts a
// replacement: the queued analysis runs once and Postgres holds exactly one
// analysis for the batch. This is the short CI form.
func TestFault_WorkerKilledWhileAnalysisQueuedYieldsOneAnalysis(t *testing.T) {
	runAnalysisKill(t, false)
}

// TestFault_WorkerKilledMidAnalysisYieldsOneAnalysis SIGKILLs the worker
// once the analysis activity is running on it, with no slow mode: the
// analysis heartbeats under a 5 s heartbeat timeout, so Temporal notices
// the lost attempt in seconds (not after the one-minute start-to-close
// timeout) and a replacement worker retries it. Postgres holds exactly one
// analysis for the batch.
func TestFault_WorkerKilledMidAnalysisYieldsOneAnalysis(t *testing.T) {
	runAnalysisKill(t, true)
}

// runAnalysisKill runs a FlyLab session to a batch, kills the worker before
// (or, with midRun, while) the analysis activity runs, and retries the
// analysis as an agent would until it answers.
func runAnalysisKill(t *testing.T, midRun bool) {
	s, dbURL := workerlessStack(t)
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	c := loadFlyContract(t)
	var edits map[string]any
	if midRun {
		// The largest trial the contract allows (3 conditions × 20
		// replicates × 10 s): its analysis runs for long enough (a small
		// one takes ~25 ms) that the kill reliably lands inside it.
		edits = map[string]any{"replicates": 20, "trial_duration_ms": 10000, "duration_ms": 5000}
	}
	a := approveFlyExperiment(t, s, c, edits)
	ran := flyTool(t, s, c, s.APIKey, "run_fly_simulation", a.runArgs(a.rev, "run-1"))
	batchID := mustOK(t, ran)["id"].(string)
	args := map[string]any{"page_session_id": a.sid, "expected_state_revision": ran["state_revision"], "batch_id": batchID, "metrics": mdnPanel}
	url := s.APIURL + "/v1/flylab/tools/analyze_fly_behavior"

	if !midRun {
		first.Kill()
	}
	result := make(chan map[string]any, 1)
	sent := time.Now()
	go func() {
		deadline := time.Now().Add(3 * time.Minute)
		for time.Now().Before(deadline) {
			// An agent whose call timed out sends the same call again.
			// While the first call is still running, the session answers
			// STALE_STATE naming the running tool: wait and send it again.
			r, err := post(url, s.APIKey, args, 20*time.Second)
			var env map[string]any
			if err == nil && r.Status == 200 && json.Unmarshal(r.Body, &env) == nil {
				e, _ := env["error"].(map[string]any)
				d, _ := e["details"].(map[string]any)
				if env["ok"] == false && e["code"] == "STALE_STATE" && d["running"] == "analyze_fly_behavior" && e["retryable"] == true {
					time.Sleep(time.Second)
					continue
				}
				result <- env
				return
			}
		}
		result <- nil
	}()
	var killed time.Time
	if midRun {
		tc := s.Client(t)
		deadline := time.Now().Add(30 * time.Second)
		state := enumspb.PENDING_ACTIVITY_STATE_UNSPECIFIED
		for state != enumspb.PENDING_ACTIVITY_STATE_STARTED {
			if time.Now().After(deadline) {
				t.Fatalf("analysis activity never started (last state %v)", state)
			}
			time.Sleep(2 * time.Millisecond)
			state = pendingActivityState(tc, a.sid, wf.ActivityAnalyze)
		}
		first.Kill()
		killed = time.Now()
		t.Logf("analysis seen running %s after the call was sent; worker killed", killed.Sub(sent).Round(time.Millisecond))
	} else {
		time.Sleep(time.Second) // the request reaches the API with no worker alive
	}
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	env := <-result
	if env == nil {
		t.Fatal("analysis never finished after the worker was replaced")
	}
	if midRun {
		// Without a heartbeat timeout the lost attempt is only noticed at
		// the one-minute start-to-close timeout.
		took := time.Since(killed)
		t.Logf("analysis answered %s after the worker was killed mid-attempt", took.Round(time.Millisecond))
		if took > 45*time.Second {
			t.Fatalf("recovery took %s: the killed attempt was not detected by its heartbeat timeout", took)
		}
	}
	c.checkEnvelope(t, "analyze_fly_behavior", env)
	if e, _ := env["error"].(map[string]any); e != nil && e["code"] == "STALE_STATE" {
		if d, _ := e["details"].(map[string]any); d["running"] != nil {
			t.Fatalf("a mutation in progress must answer a retryable STALE_STATE: %v", e)
		}
	}
	if e, _ := env["error"].(map[string]any); env["ok"] == false && e["code"] == "STALE_STATE" {
		// The first call committed while the agent waited: it resumes from
		// inspect_flylab_state, which must list exactly that one analysis.
		st := mustOK(t, flyTool(t, s, c, s.APIKey, "inspect_flylab_state", nil))
		ids, _ := st["agent_context"].(map[string]any)["artifacts"].(map[string]any)["analysis_ids"].([]any)
		if len(ids) != 1 {
			t.Fatalf("after the retry was stale, inspect lists analyses %v", ids)
		}
	} else {
		mustOK(t, env)
	}
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.Model(&flymodels.Analysis{}).Where("batch_id = ?", batchID).Count(&n).Error; err != nil || n != 1 {
		t.Fatalf("analyses of batch %s: %d (%v)", batchID, n, err)
	}
}

// pendingActivityState is the state of the session workflow's pending
// activity of the given type (UNSPECIFIED when there is none).
func pendingActivityState(c client.Client, sid, activity string) enumspb.PendingActivityState {
	desc, err := c.DescribeWorkflowExecution(context.Background(), wf.SessionWorkflowID(sid), "")
	if err != nil {
		return enumspb.PENDING_ACTIVITY_STATE_UNSPECIFIED
	}
	for _, p := range desc.GetPendingActivities() {
		if p.GetActivityType().GetName() == activity {
			return p.GetState()
		}
	}
	return enumspb.PENDING_ACTIVITY_STATE_UNSPECIFIED
}

// activityPending reports whether the session workflow has an activity of
// the given type scheduled or running.
func activityPending(c client.Client, sid, activity string) bool {
	desc, err := c.DescribeWorkflowExecution(context.Background(), wf.SessionWorkflowID(sid), "")
	if err != nil {
		return false
	}
	for _, p := range desc.GetPendingActivities() {
		if p.GetActivityType().GetName() == activity {
			return true
		}
	}
	return false
}
