package e2e

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"golang.org/x/crypto/ssh"

	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

// sandboxKey is a fresh ed25519 key: its signer and authorized_keys line.
func sandboxKey(t *testing.T) (ssh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))) + " agent@e2e"
}

// sshAddr is the host:port a sandbox view names.
func sshAddr(view map[string]any) string {
	return net.JoinHostPort(str(view["ssh_host"]), fmt.Sprint(int(view["ssh_port"].(float64))))
}

func sshDial(view map[string]any, key ssh.Signer) (*ssh.Client, error) {
	return ssh.Dial("tcp", sshAddr(view), &ssh.ClientConfig{User: str(view["ssh_user"]), Auth: []ssh.AuthMethod{ssh.PublicKeys(key)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
}

func TestSandbox_LocalSandboxOverSSHRunsPullExtendReleaseThroughMCP(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-sandbox")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	exp := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "sandbox-exp"})["experiment_id"])

	opts := agent.must("sandbox.options", map[string]any{"project_id": pid, "region": "local"})
	if opts["count"].(float64) < 1 || len(agent.must("sandbox.options", map[string]any{"project_id": pid, "gpu": true})["instance_types"].([]any)) != 0 {
		t.Fatalf("sandbox.options: %v", opts)
	}
	health := op.must("sandbox.health", map[string]any{})
	if dig(health["providers"].([]any)[0], "healthy") != true {
		t.Fatalf("sandbox.health: %v", health)
	}
	if r := agent.call("sandbox.health", map[string]any{}); !r.IsError || str(dig(r.Body, "error", "reason")) != "tool_visibility_forbidden" {
		t.Fatalf("sandbox.health with an agent key: %s", r.Raw)
	}
	keyA, pubA := sandboxKey(t)
	keyB, pubB := sandboxKey(t)
	agent.refused("invalid_input", "sandbox.request", map[string]any{"project_id": pid, "public_key": "ssh-ed25519 not-a-key-at-all"})
	a := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pubA, "time_limit": 600, "memory": "512Mi"})
	uidA := str(a["sandbox_uid"])
	if a["status"] != "running" || a["ssh_host"] != "127.0.0.1" || a["ssh_user"] != "sandbox" || str(a["workdir"]) == "" {
		t.Fatalf("sandbox.request: %v", a)
	}
	agent.refused("conflict", "sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pubB})
	b := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pubB, "additional": true})
	st := agent.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": exp})
	if sb, _ := st["sandbox"].(map[string]any); sb["active"] != true || sb["ssh_port"] == nil || sb["workdir"] == nil || sb["expires_at"] == nil || sb["ssh_user"] != "sandbox" {
		t.Fatalf("status_and_next sandbox block: %v", st["sandbox"])
	}

	// Only each sandbox's own key gets in.
	if _, err := sshDial(a, keyB); err == nil {
		t.Fatal("sandbox A accepted sandbox B's key")
	}
	if _, err := sshDial(b, keyA); err == nil {
		t.Fatal("sandbox B accepted sandbox A's key")
	}
	c, err := sshDial(a, keyA)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	metrics := `{"accuracy": 0.91}`
	out, err := sess.CombinedOutput(`mkdir -p results && printf '%s\n' '` + metrics + `' > results/metrics.json && echo scratch > scratch.txt && echo wrote-results`)
	_ = sess.Close()
	_ = c.Close()
	if err != nil || strings.TrimSpace(string(out)) != "wrote-results" {
		t.Fatalf("ssh command: %q %v", out, err)
	}

	runs := agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uidA, "wait_seconds": 5})
	list, _ := runs["runs"].([]any)
	if len(list) != 1 || dig(list[0], "exit_code") != 0.0 || !strings.Contains(str(dig(list[0], "output")), "wrote-results") ||
		!strings.HasPrefix(str(dig(list[0], "command")), "mkdir -p results") || dig(list[0], "ended_at") == nil {
		t.Fatalf("sandbox.runs: %v", runs)
	}
	term := agent.must("sandbox.terminal", map[string]any{"project_id": pid, "sandbox_uid": uidA, "tail": 10})
	if text := str(term["text"]); !strings.Contains(text, "$ mkdir -p results") || !strings.Contains(text, "wrote-results") {
		t.Fatalf("sandbox.terminal: %v", term)
	}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if lines := agent.must("sandbox.terminal", map[string]any{"project_id": pid, "sandbox_uid": uidA, "since": future})["lines"]; lines != nil {
		t.Fatalf("terminal since the future: %v", lines)
	}

	// A long command: runs long-polls while it runs, the checklist lists it,
	// and release kills it.
	long, err := sshDial(a, keyA)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = long.Close() }()
	longSess, err := long.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := longSess.Start("sleep 120"); err != nil {
		t.Fatal(err)
	}
	polled := agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uidA, "wait_seconds": 1})
	if polled["running"] != 1.0 || polled["count"] != 2.0 || polled["waited_seconds"].(float64) < 1 {
		t.Fatalf("sandbox.runs while sleeping: %v", polled)
	}

	// Pull: traversal refused (nothing stored), then the real file.
	for _, bad := range []string{"../../../etc/passwd", "/etc/passwd", "results/../../x"} {
		agent.refused("invalid_input", "sandbox.pull_outputs", map[string]any{"project_id": pid, "sandbox_uid": uidA, "paths": []string{"results/metrics.json", bad}})
	}
	if none := agent.must("storage.find", map[string]any{"project_id": pid}); none["total"] != 0.0 {
		t.Fatalf("refused pulls stored objects: %v", none)
	}
	pulled := agent.must("sandbox.pull_outputs", map[string]any{"project_id": pid, "sandbox_uid": uidA, "paths": []string{"results/metrics.json"}})
	o := pulled["outputs"].([]any)[0]
	if dig(o, "sha256") != digest([]byte(metrics+"\n")) || dig(o, "status") != "available" || dig(o, "experiment_id") != exp {
		t.Fatalf("sandbox.pull_outputs: %v", pulled)
	}
	found := agent.must("storage.find", map[string]any{"project_id": pid, "object_id": dig(o, "object_id")})
	if found["total"] != 1.0 || dig(found["objects"].([]any)[0], "producing_experiment_id") != exp {
		t.Fatalf("storage.find of the pulled object: %v", found)
	}

	// Extend moves the expiry by the seconds asked.
	before, _ := time.Parse(time.RFC3339Nano, str(dig(agent.must("sandbox.get", map[string]any{"project_id": pid, "sandbox_uid": uidA}), "sandbox", "expires_at")))
	ext := agent.must("sandbox.extend", map[string]any{"project_id": pid, "sandbox_uid": uidA, "seconds": 900})
	after, _ := time.Parse(time.RFC3339Nano, str(ext["expires_at"]))
	if ext["extended"] != true || after.Sub(before).Round(time.Second) != 900*time.Second {
		t.Fatalf("sandbox.extend: %v (before %v)", ext, before)
	}
	agent.refused("invalid_input", "sandbox.extend", map[string]any{"project_id": pid, "sandbox_uid": uidA, "seconds": 3600})

	// Release by experiment: the checklist first, destroying nothing.
	chk := agent.must("sandbox.release", map[string]any{"project_id": pid, "experiment_id": exp})
	pending, _ := chk["pending_release"].([]any)
	if chk["status"] != "confirmation_required" || chk["released"] != false || len(pending) != 2 || str(chk["hint"]) == "" {
		t.Fatalf("release checklist: %v", chk)
	}
	for _, p := range pending {
		if dig(p, "sandbox_uid") != uidA {
			continue
		}
		unpulled, _ := dig(p, "unpulled_outputs").([]any)
		unpinned, _ := dig(p, "unpinned_storage").([]any)
		runningCmds, _ := dig(p, "running_commands").([]any)
		if len(unpulled) != 1 || dig(unpulled[0], "path") != "scratch.txt" || len(unpinned) != 1 || str(dig(p, "workdir")) == "" ||
			len(runningCmds) != 1 || dig(runningCmds[0], "command") != "sleep 120" {
			t.Fatalf("checklist for A: %v", p)
		}
	}
	if c, err := sshDial(a, keyA); err != nil {
		t.Fatalf("the checklist destroyed something: %v", err)
	} else {
		_ = c.Close()
	}
	rel := agent.must("sandbox.release", map[string]any{"project_id": pid, "experiment_id": exp, "confirm_retained": true})
	if rel["status"] != "terminated" || rel["released"] != true || len(rel["sandboxes"].([]any)) != 2 {
		t.Fatalf("release: %v", rel)
	}
	for _, v := range []map[string]any{a, b} {
		if conn, err := net.DialTimeout("tcp", sshAddr(v), 2*time.Second); err == nil {
			_ = conn.Close()
			t.Fatalf("port %s still open after release", sshAddr(v))
		}
	}
	after2 := agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uidA, "wait_seconds": 10})
	if runs := after2["runs"].([]any); after2["running"] != 0.0 || dig(runs[1], "status") != "killed" {
		t.Fatalf("runs after release: %v", after2)
	}
	if got := agent.must("sandbox.get", map[string]any{"project_id": pid, "sandbox_uid": uidA}); dig(got, "sandbox", "status") != "terminated" {
		t.Fatalf("after release: %v", got)
	}
	if sb := agent.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": exp})["sandbox"]; dig(sb, "active") != false {
		t.Fatalf("status_and_next after release: %v", sb)
	}
	recordSandboxHistory(t, s, uidA, "local-request-extend-release-host-queue")
}

// recordSandboxHistory waits for the sandbox workflow to close and, when
// GATEHOUSE_RECORD_HISTORIES=1, writes its history for the replay test.
func recordSandboxHistory(t *testing.T, s *Stack, uid, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Client(t).GetWorkflow(ctx, "sandbox/"+uid, "").Get(ctx, nil); err != nil {
		t.Fatalf("sandbox workflow: %v", err)
	}
	writeHistory(t, s, "sandbox/"+uid, "research/testdata/sandbox-histories", name)
}

// driveToRunning plays the agent until the experiment is running with no
// result yet (next_action run_experiment_and_retain_results), passing
// every review.
func driveToRunning(t *testing.T, agent *researchAgent, projectID, expID string) map[string]any {
	t.Helper()
	for step := 0; step < 30; step++ {
		w, _ := agent.must("workflow.status_and_next", map[string]any{"project_id": projectID, "experiment_id": expID})["workflow"].(map[string]any)
		next := str(w["next_action"])
		if next == "run_experiment_and_retain_results" {
			return w
		}
		if guide, ok := w["artifact_guidance"].(map[string]any); ok {
			sub := agent.must("artifact.submit", map[string]any{"project_id": projectID, "target_type": "experiment",
				"target_id": expID, "role": guide["role"], "path": guide["path"]})
			if code, body := uploadAs(t, sub, []byte(strings.ReplaceAll(str(guide["template"]), "TODO:", "Filled in:"))); code != 200 || body["valid"] != true {
				t.Fatalf("upload of %s: %d %v", guide["role"], code, body)
			}
			continue
		}
		if gate, ok := w["review_gate"].(map[string]any); ok {
			runReview(t, agent, projectID, expID, str(gate["role"]), verdict{verdict: "pass"})
			continue
		}
		switch next {
		case "submit_design_for_review", "mark_ready_to_run", "start_running":
			agent.must("experiment.transition", map[string]any{"project_id": projectID, "experiment_id": expID, "transition": next, "evidence": map[string]any{}})
		default:
			t.Fatalf("step %d: unexpected next_action %q (%v)", step, next, w)
		}
	}
	t.Fatal("experiment never reached running")
	return nil
}

// gateOf is an experiment's current_gate through workflow.status_and_next.
func gateOf(agent *researchAgent, projectID, expID string) (string, map[string]any) {
	st := agent.must("workflow.status_and_next", map[string]any{"project_id": projectID, "experiment_id": expID})
	return str(dig(st, "workflow", "current_gate")), st
}

func TestSandbox_RunningSandboxMakesTheRunningExperimentExecutionActive(t *testing.T) {
	s := Shared(t)
	op := connectResearch(t, s, s.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-sbx-gate")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	exp := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "sandbox-gate"})["experiment_id"])
	other := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "sandbox-gate-other"})["experiment_id"])
	w := driveToRunning(t, agent, pid, exp)
	if w["current_gate"] != "execution_ready" || w["status"] != "running" {
		t.Fatalf("running without a sandbox: %v", w)
	}
	_, pub := sandboxKey(t)
	// A sandbox of another experiment does not count.
	sb := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": other, "public_key": pub, "time_limit": 600})
	if gate, st := gateOf(agent, pid, exp); gate != "execution_ready" {
		t.Fatalf("gate with another experiment's sandbox: %v", st["workflow"])
	}
	agent.must("sandbox.attach", map[string]any{"project_id": pid, "experiment_id": exp, "sandbox_uid": sb["sandbox_uid"]})
	gate, st := gateOf(agent, pid, exp)
	if gate != "execution_active" || dig(st, "workflow", "next_action") != "run_experiment_and_retain_results" || dig(st, "sandbox", "active") != true {
		t.Fatalf("gate with an attached running sandbox: %v %v", st["workflow"], st["sandbox"])
	}
	// The experiment's workflow is told too: its GatehouseGate search
	// attribute (what the Temporal UI filters on) follows.
	waitForGateAttribute(t, s, exp, "execution_active")
	agent.must("sandbox.release", map[string]any{"project_id": pid, "experiment_id": exp, "confirm_retained": true})
	if gate, st := gateOf(agent, pid, exp); gate != "execution_ready" {
		t.Fatalf("gate after release: %v", st["workflow"])
	}
	waitForGateAttribute(t, s, exp, "execution_ready")
	recordResearchHistory(t, s, researchwf.ExperimentWorkflowID(exp), "running_with_sandbox_activity")
}

// waitForGateAttribute waits until experiment exp's workflow carries the
// GatehouseGate search attribute want.
func waitForGateAttribute(t *testing.T, s *Stack, exp, want string) {
	t.Helper()
	var got string
	deadline := time.Now().Add(15 * time.Second)
	for {
		desc, err := s.Client(t).DescribeWorkflowExecution(context.Background(), researchwf.ExperimentWorkflowID(exp), "")
		if err != nil {
			t.Fatal(err)
		}
		if p := desc.WorkflowExecutionInfo.GetSearchAttributes().GetIndexedFields()["GatehouseGate"]; p != nil {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &got)
		}
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GatehouseGate of %s is %q, want %q", exp, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
