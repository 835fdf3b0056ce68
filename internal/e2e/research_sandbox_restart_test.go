package e2e

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestSandbox_LocalSandboxSurvivesAWorkerRestart: a local sandbox's SSH
// server lives in the worker process. The worker is SIGKILLed while the
// sandbox runs and its old port is taken, so the replacement worker's
// start re-provisions it on a new port over the same working directory;
// sandbox.get and workflow.status_and_next show the new endpoint.
func TestSandbox_LocalSandboxSurvivesAWorkerRestart(t *testing.T) {
	t.Parallel()
	s, dbURL := workerlessStack(t)
	first := StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	op := connectResearch(t, s, s.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-sbx-restart")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	exp := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "sandbox-restart"})["experiment_id"])
	key, pub := sandboxKey(t)
	before := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pub, "time_limit": 900})
	uid := str(before["sandbox_uid"])
	if before["status"] != "running" {
		t.Fatalf("sandbox.request: %v", before)
	}
	c, err := sshDial(before, key)
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := c.NewSession()
	if out, err := sess.CombinedOutput("echo survived > kept.txt && echo ok"); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("ssh: %q %v", out, err)
	}
	_ = c.Close()

	first.Kill()
	if !first.Exited() {
		t.Fatal("worker did not die")
	}
	if conn, err := net.DialTimeout("tcp", sshAddr(before), time.Second); err == nil {
		_ = conn.Close()
		t.Fatal("the SSH port outlived the worker")
	}
	squatter, err := net.Listen("tcp", sshAddr(before))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = squatter.Close() }()
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))

	var after map[string]any
	// A bound, not a timing: the replacement worker process must start and
	// the sandbox workflow's task must leave the dead worker's sticky queue
	// (5 s) before the re-provision; alone this takes about 10 s, but one CI
	// run with every e2e test in parallel on 2 cores needed more than 60 s.
	waitFor(t, 2*time.Minute, func() bool {
		after, _ = agent.must("sandbox.get", map[string]any{"project_id": pid, "sandbox_uid": uid})["sandbox"].(map[string]any)
		return after["ssh_port"] != before["ssh_port"]
	})
	if after["status"] != "running" || after["workdir"] != before["workdir"] || after["expires_at"] != before["expires_at"] {
		t.Fatalf("after restart: %v", after)
	}
	if block := agent.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": exp})["sandbox"]; dig(block, "ssh_port") != after["ssh_port"] {
		t.Fatalf("status_and_next shows %v, sandbox.get %v", block, after["ssh_port"])
	}
	c, err = sshDial(after, key)
	if err != nil {
		t.Fatalf("dial the re-provisioned sandbox: %v", err)
	}
	defer func() { _ = c.Close() }()
	sess, _ = c.NewSession()
	if out, err := sess.CombinedOutput("cat kept.txt"); err != nil || strings.TrimSpace(string(out)) != "survived" {
		t.Fatalf("file after restart: %q %v", out, err)
	}
	runs := agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uid})
	if runs["count"] != 2.0 {
		t.Fatalf("runs after restart: %v", runs)
	}
	rel := agent.must("sandbox.release", map[string]any{"project_id": pid, "sandbox_uid": uid, "confirm_retained": true})
	if rel["status"] != "terminated" {
		t.Fatalf("release after restart: %v", rel)
	}
	recordSandboxHistory(t, s, uid, "local-reprovisioned-after-worker-restart-host-queue")
}
