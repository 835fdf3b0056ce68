package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestWorkerProcess_KilledAndReplacedFinishesWorkflows proves the harness
// the fault-injection tests rely on: a worker in its own process serves the
// stack, is SIGKILLed, and a replacement picks the work up.
func TestWorkerProcess_KilledAndReplacedFinishesWorkflows(t *testing.T) {
	t.Parallel()
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	s := StartStack(t, StackOptions{NoWorker: true, Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}})
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	held := s.Do(t, http.MethodPost, "/v1/ping", s.APIKey, map[string]any{"hold": true})
	if held.Status != http.StatusAccepted {
		t.Fatalf("hold: %d %s", held.Status, held.Body)
	}
	var h struct {
		WorkflowID string `json:"workflow_id"`
	}
	held.JSON(t, &h)
	first.Kill()
	if !first.Exited() {
		t.Fatal("worker did not die")
	}
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	deadline := time.Now().Add(45 * time.Second)
	for {
		r := s.Do(t, http.MethodPost, "/v1/ping/"+h.WorkflowID[len("ping/"):]+"/pong", s.APIKey, nil)
		if r.Status == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("ping never completed after the worker was replaced: %d %s", r.Status, r.Body)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
