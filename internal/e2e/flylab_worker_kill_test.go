package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestFlyLab_WorkerKilledDuringSimulationYieldsOneBatch SIGKILLs the worker
// while the simulation activity heartbeats; a replacement worker retries
// the activity, the ledger still holds exactly one batch, and the
// experiment completes with exactly one analysis of it.
func TestFlyLab_WorkerKilledDuringSimulationYieldsOneBatch(t *testing.T) {
	s, dbURL := workerlessStack(t)
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	c := loadFlyContract(t)
	call := func(tool string, args any) map[string]any { return flyTool(t, s, c, s.APIKey, tool, args) }
	sid, hyp, draftRev := draftMDNHypothesis(t, call)
	args := designArgs(sid, draftRev, hyp, 5)
	args["replicates"], args["trial_duration_ms"], args["duration_ms"] = 20, 10000, 5000
	designed := call("design_stimulation_trial", args)
	exp := mustOK(t, designed)["experiment"].(map[string]any)
	expID, hash := exp["id"].(string), exp["protocolHash"].(string)
	if r := s.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", s.OperatorToken,
		map[string]any{"protocol_hash": hash}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	cur := call("inspect_flylab_state", nil)
	result := make(chan map[string]any, 1)
	go func() {
		r := s.Do(t, http.MethodPost, "/v1/flylab/tools/run_fly_simulation", s.APIKey, map[string]any{"page_session_id": sid,
			"expected_state_revision": cur["state_revision"], "experiment_id": expID, "approved_protocol_hash": hash, "operation_id": "kill-1"})
		var env map[string]any
		r.JSON(t, &env)
		result <- env
	}()
	tc := s.Client(t)
	deadline := time.Now().Add(60 * time.Second)
	for !heartbeating(tc, sid) {
		if time.Now().After(deadline) {
			t.Fatal("simulation never heartbeated")
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.Kill()
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	var ran map[string]any
	select {
	case ran = <-result:
		mustOK(t, ran)
	case <-time.After(3 * time.Minute):
		t.Fatal("run never finished after the worker was replaced")
	}
	// The experiment then completes: its batch is analysed once.
	batchID := mustOK(t, ran)["id"].(string)
	mustOK(t, call("analyze_fly_behavior", map[string]any{"page_session_id": sid, "expected_state_revision": ran["state_revision"],
		"batch_id": batchID, "metrics": mdnPanel}))
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := flymodels.CountBatches(context.Background(), db, expID); err != nil || n != 1 {
		t.Fatalf("batches for %s: %d (%v)", expID, n, err)
	}
	var analyses int64
	if err := db.Model(&flymodels.Analysis{}).Where("batch_id = ?", batchID).Count(&analyses).Error; err != nil || analyses != 1 {
		t.Fatalf("analyses of batch %s: %d (%v)", batchID, analyses, err)
	}
}

// heartbeating reports whether the session's simulation activity has
// recorded progress.
func heartbeating(c client.Client, sid string) bool {
	desc, err := c.DescribeWorkflowExecution(context.Background(), wf.SessionWorkflowID(sid), "")
	if err != nil {
		return false
	}
	for _, a := range desc.GetPendingActivities() {
		if a.GetActivityType().GetName() == wf.ActivitySimulate && a.GetHeartbeatDetails() != nil {
			return true
		}
	}
	return false
}
