package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWorkerProcess_KilledAndReplacedFinishesWorkflows proves the harness
// the fault-injection tests rely on: a worker in its own process serves the
// stack, is SIGKILLed, and a replacement picks the work up.
func TestWorkerProcess_KilledAndReplacedFinishesWorkflows(t *testing.T) {
	t.Parallel()
	s, dbURL := workerlessStack(t)
	env := s.WorkerEnv(dbURL)
	env["GATEHOUSE_WORKER_HEALTH_ADDR"] = freeAddr(t)
	first := StartRoleProcess(t, "worker", env)
	probeWorkerHealth(t, "http://"+env["GATEHOUSE_WORKER_HEALTH_ADDR"])
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

// probeWorkerHealth waits for a worker process's health listener and
// checks its three endpoints: liveness, readiness against the real
// database and Temporal, and the worker's own Temporal SDK metrics.
func probeWorkerHealth(t *testing.T, base string) {
	t.Helper()
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := get("/readyz")
		if code == http.StatusOK {
			if !strings.Contains(body, `"database":"ok"`) || !strings.Contains(body, `"temporal":"ok"`) {
				t.Fatalf("worker readyz must name its dependencies: %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker never became ready: %d %s", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Fatalf("worker healthz: %d", code)
	}
	code, body := get("/metrics")
	if code != http.StatusOK || !strings.Contains(body, "temporal_") {
		t.Fatalf("worker metrics must carry the SDK's temporal_* series: %d %.300s", code, body)
	}
}
