package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
)

// TestSandbox_SplitAPIAndWorkerReadTheSandboxOnItsHost: the API process
// (in the test) and the worker process keep different data directories,
// as an api and a worker on two machines do. The worker holds the local
// sandbox; the API reads its runs (long-polled), terminal and files, pulls
// an output and builds the release checklist through the worker host's
// task queue, with path errors still typed.
func TestSandbox_SplitAPIAndWorkerReadTheSandboxOnItsHost(t *testing.T) {
	t.Parallel()
	s, dbURL := workerlessStack(t)
	env := s.WorkerEnv(dbURL)
	env["GATEHOUSE_DATA_DIR"] = t.TempDir() // not the API's: the sandbox lives only on the worker's "host"
	StartRoleProcess(t, "worker", env)
	op := connectResearch(t, s, s.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-sbx-split")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	exp := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "sandbox-split"})["experiment_id"])
	key, pub := sandboxKey(t)
	sb := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pub, "time_limit": 900})
	uid := str(sb["sandbox_uid"])
	if sb["status"] != "running" {
		t.Fatalf("sandbox.request: %v", sb)
	}
	c, err := sshDial(sb, key)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	big := 3<<20 + 12345 // over one inspection chunk, so the pull takes several
	sess, _ := c.NewSession()
	out, err := sess.CombinedOutput(fmt.Sprintf("echo hello > out.txt && head -c %d /dev/zero | tr '\\0' 'g' > big.bin && echo scratch > scratch.txt && echo written", big))
	_ = sess.Close()
	if err != nil || strings.TrimSpace(string(out)) != "written" {
		t.Fatalf("ssh: %q %v", out, err)
	}

	// A command that runs for a moment: the long poll waits for it on the
	// worker's host and answers once it ended.
	slow, _ := c.NewSession()
	if err := slow.Start("sleep 1; echo slept"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() bool {
		return agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uid})["count"] == 2.0
	})
	runs := agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uid, "wait_seconds": 20})
	list, _ := runs["runs"].([]any)
	if runs["running"] != 0.0 || len(list) != 2 || dig(list[1], "exit_code") != 0.0 || !strings.Contains(str(dig(list[1], "output")), "slept") ||
		!strings.Contains(str(dig(list[0], "output")), "written") {
		t.Fatalf("sandbox.runs through the worker host: %v", runs)
	}
	// What reading through the host queue costs: one SandboxInspect
	// workflow per call (logged; go test -v shows it).
	var took []time.Duration
	for i := 0; i < 10; i++ {
		start := time.Now()
		agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uid})
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("sandbox.runs through the worker host's queue: p50 %s, max %s over %d calls", took[len(took)/2], took[len(took)-1], len(took))
	term := agent.must("sandbox.terminal", map[string]any{"project_id": pid, "sandbox_uid": uid, "tail": 10})
	if text := str(term["text"]); !strings.Contains(text, "$ sleep 1; echo slept") || !strings.Contains(text, "slept") {
		t.Fatalf("sandbox.terminal through the worker host: %v", term)
	}

	agent.refused("invalid_input", "sandbox.pull_outputs", map[string]any{"project_id": pid, "sandbox_uid": uid, "paths": []string{"out.txt", "../../etc/passwd"}})
	agent.refused("not_found", "sandbox.pull_outputs", map[string]any{"project_id": pid, "sandbox_uid": uid, "paths": []string{"missing.txt"}})
	pulled := agent.must("sandbox.pull_outputs", map[string]any{"project_id": pid, "sandbox_uid": uid, "paths": []string{"out.txt", "big.bin"}})
	outs, _ := pulled["outputs"].([]any)
	if len(outs) != 2 || dig(outs[0], "sha256") != digest([]byte("hello\n")) ||
		dig(outs[1], "sha256") != digest([]byte(strings.Repeat("g", big))) || dig(outs[1], "size_bytes") != float64(big) {
		t.Fatalf("sandbox.pull_outputs through the worker host: %v", pulled)
	}

	chk := agent.must("sandbox.release", map[string]any{"project_id": pid, "sandbox_uid": uid})
	pending, _ := chk["pending_release"].([]any)
	if chk["status"] != "confirmation_required" || len(pending) != 1 || dig(pending[0], "outputs_unchecked") != nil {
		t.Fatalf("release checklist: %v", chk)
	}
	if unpulled, _ := dig(pending[0], "unpulled_outputs").([]any); len(unpulled) != 1 || dig(unpulled[0], "path") != "scratch.txt" {
		t.Fatalf("checklist's unpulled outputs, read on the worker host: %v", pending[0])
	}
	rel := agent.must("sandbox.release", map[string]any{"project_id": pid, "sandbox_uid": uid, "confirm_retained": true})
	if rel["status"] != "terminated" {
		t.Fatalf("release: %v", rel)
	}
	recordInspectHistories(t, s)
}

// recordInspectHistories keeps one completed and one failed (a refused
// path) inspection for the replay test.
func recordInspectHistories(t *testing.T, s *Stack) {
	t.Helper()
	for status, name := range map[string]string{"Completed": "completed", "Failed": "refused-path-failed"} {
		var id string
		waitFor(t, 30*time.Second, func() bool {
			resp, err := s.Client(t).ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
				Query: fmt.Sprintf("WorkflowType = 'research.SandboxInspect' AND ExecutionStatus = '%s'", status), PageSize: 1})
			if err != nil || len(resp.GetExecutions()) == 0 {
				return false
			}
			id = resp.GetExecutions()[0].GetExecution().GetWorkflowId()
			return true
		})
		writeHistory(t, s, id, "research/testdata/sandbox-inspect-histories", name)
	}
}
