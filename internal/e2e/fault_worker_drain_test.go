package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestWorker_SIGTERMDrainsTheRunningSimulation sends SIGTERM (what a
// rolling update sends) to the only worker while run_fly_simulation's
// activity is running. The worker stops polling but lets the activity
// finish: history shows it completed on its first attempt after the
// signal, the worker then exits cleanly, and a replacement worker only
// finishes the workflow's bookkeeping. The tool call answers ok with one
// batch.
func TestWorker_SIGTERMDrainsTheRunningSimulation(t *testing.T) {
	s, dbURL := workerlessStack(t)
	env := s.WorkerEnv(dbURL)
	env["GATEHOUSE_WORKER_STOP_TIMEOUT"] = "2m" // roomy: CI machines are loaded
	env["GATEHOUSE_LOG_LEVEL"] = "info"
	first := StartRoleProcess(t, "worker", env)
	c := loadFlyContract(t)
	approved := approveFlyExperiment(t, s, c, map[string]any{"replicates": 20, "trial_duration_ms": 10000, "duration_ms": 5000})

	result := make(chan Response, 1)
	failed := make(chan error, 1)
	go func() {
		r, err := post(s.APIURL+"/v1/flylab/tools/run_fly_simulation", s.APIKey, approved.runArgs(approved.rev, "drain-1"), 5*time.Minute)
		if err != nil {
			failed <- err
			return
		}
		result <- r
	}()
	tc := s.Client(t)
	waitFor(t, 60*time.Second, func() bool { return heartbeating(tc, approved.sid) })

	signalled := time.Now()
	terminate(t, first)
	select {
	case <-first.waited:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the worker did not exit within its stop timeout after SIGTERM:\n%s", first.Output())
	}
	if code := first.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("a drained worker exits 0, got %d:\n%s", code, first.Output())
	}
	if !strings.Contains(first.Output(), "worker draining in-flight activities") {
		t.Fatalf("the worker's shutdown must say it drains:\n%s", first.Output())
	}
	sim := simulateActivity(t, tc, wf.SessionWorkflowID(approved.sid))
	if sim.completed == nil {
		t.Fatalf("the simulation did not complete on the SIGTERMed worker (failed: %v, timed out: %v; pending: %s); it would be retried from scratch elsewhere",
			sim.failed != nil, sim.timedOut != nil, pendingSimulation(tc, wf.SessionWorkflowID(approved.sid)))
	}
	if sim.attempt != 1 {
		t.Fatalf("simulation completed on attempt %d, want 1 (no retry)", sim.attempt)
	}
	if done := sim.completed.GetEventTime().AsTime(); !done.After(signalled) {
		t.Fatalf("the simulation finished at %s, before SIGTERM at %s: the test proved nothing; make it longer", done, signalled)
	}
	t.Logf("simulation ran %s after SIGTERM; worker %s", sim.completed.GetEventTime().AsTime().Sub(signalled).Round(time.Millisecond), sim.identity)

	// The activity's result still needs a workflow task to reach the tool
	// call: a replacement worker runs it (it never runs the activity).
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	var ran map[string]any
	select {
	case r := <-result:
		r.JSON(t, &ran)
		mustOK(t, ran)
	case err := <-failed:
		t.Fatal(err)
	case <-time.After(3 * time.Minute):
		t.Fatal("run_fly_simulation never answered after the drain")
	}
	if again := simulateActivity(t, tc, wf.SessionWorkflowID(approved.sid)); again.scheduled != 1 || again.attempt != 1 {
		t.Fatalf("simulation scheduled %d times, attempt %d; want once, attempt 1", again.scheduled, again.attempt)
	}
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	}()
	if n, err := flymodels.CountBatches(context.Background(), db, approved.expID); err != nil || n != 1 {
		t.Fatalf("batches for %s: %d (%v)", approved.expID, n, err)
	}
	if r := s.Do(t, http.MethodGet, "/readyz", "", nil); r.Status != http.StatusOK {
		t.Fatalf("api readyz after the drain: %d %s", r.Status, r.Body)
	}
}

// terminate sends SIGTERM, the graceful stop a rolling update sends.
func terminate(t *testing.T, p *Process) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
}

// simulation is what one workflow's history says about its simulation
// activity.
type simulation struct {
	scheduled int
	attempt   int32
	identity  string
	completed *historypb.HistoryEvent
	failed    *historypb.HistoryEvent
	timedOut  *historypb.HistoryEvent
}

// simulateActivity reads the simulation activity's events from the
// workflow's history.
func simulateActivity(t *testing.T, c client.Client, workflowID string) simulation {
	t.Helper()
	var sim simulation
	scheduled := map[int64]bool{}
	it := c.GetWorkflowHistory(context.Background(), workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			if e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == wf.ActivitySimulate {
				scheduled[e.GetEventId()] = true
				sim.scheduled++
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			if a := e.GetActivityTaskStartedEventAttributes(); scheduled[a.GetScheduledEventId()] {
				sim.attempt, sim.identity = a.GetAttempt(), a.GetIdentity()
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			if scheduled[e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()] {
				sim.completed = e
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED:
			if scheduled[e.GetActivityTaskFailedEventAttributes().GetScheduledEventId()] {
				sim.failed = e
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
			if scheduled[e.GetActivityTaskTimedOutEventAttributes().GetScheduledEventId()] {
				sim.timedOut = e
			}
		}
	}
	return sim
}

// pendingSimulation describes the simulation activity still pending, for a
// failure message: its attempt and why the last one failed.
func pendingSimulation(c client.Client, workflowID string) string {
	desc, err := c.DescribeWorkflowExecution(context.Background(), workflowID, "")
	if err != nil {
		return err.Error()
	}
	for _, a := range desc.GetPendingActivities() {
		if a.GetActivityType().GetName() == wf.ActivitySimulate {
			return fmt.Sprintf("attempt %d, state %s, last failure %q, last heartbeat %s",
				a.GetAttempt(), a.GetState(), a.GetLastFailure().GetMessage(), a.GetLastHeartbeatTime().AsTime().Format(time.RFC3339Nano))
		}
	}
	return "none"
}
