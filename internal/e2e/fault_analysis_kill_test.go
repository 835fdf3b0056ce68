package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestFault_WorkerKilledDuringAnalysisYieldsOneAnalysis SIGKILLs the worker
// as soon as the analysis activity is pending; a replacement worker runs it
// (again, if the first had started it) and Postgres holds exactly one
// analysis for the batch.
func TestFault_WorkerKilledDuringAnalysisYieldsOneAnalysis(t *testing.T) {
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	s := StartStack(t, StackOptions{NoWorker: true, Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}})
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	c := loadFlyContract(t)
	a := approveFlyExperiment(t, s, c, 2)
	ran := flyTool(t, s, c, s.APIKey, "run_fly_simulation", a.runArgs(a.rev, "run-1"))
	batchID := mustOK(t, ran)["id"].(string)

	result := make(chan Response, 1)
	go func() {
		result <- s.Do(t, http.MethodPost, "/v1/flylab/tools/analyze_fly_behavior", s.APIKey, map[string]any{
			"page_session_id": a.sid, "expected_state_revision": ran["state_revision"], "batch_id": batchID, "metrics": mdnPanel})
	}()
	tc := s.Client(t)
	deadline := time.Now().Add(30 * time.Second)
	for !activityPending(tc, a.sid, wf.ActivityAnalyze) {
		if time.Now().After(deadline) {
			t.Fatal("analysis activity never became pending")
		}
		time.Sleep(2 * time.Millisecond)
	}
	first.Kill()
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	select {
	case r := <-result:
		var env map[string]any
		r.JSON(t, &env)
		mustOK(t, env)
	case <-time.After(3 * time.Minute):
		t.Fatal("analysis never finished after the worker was replaced")
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
