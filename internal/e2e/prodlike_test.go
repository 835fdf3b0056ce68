package e2e

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/internal/prodlike"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	research "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
	rwf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestProductionTopology runs the end-to-end flows on the production
// shape: a real Temporal server on PostgreSQL, Gatehouse on PostgreSQL,
// two api and two worker processes, a shared gofakes3 store, and a
// round-robin front, so consecutive requests of one client land on
// different api replicas. Then one worker is SIGKILLed mid-flow.
func TestProductionTopology(t *testing.T) {
	p := startProdStack(t)
	t.Run("flows", func(t *testing.T) {
		t.Run("concurrently", func(t *testing.T) {
			t.Run("FlyLabPipelineWithOfficialTypeScriptClient", func(t *testing.T) {
				t.Parallel()
				runTypeScriptFlyLabClient(t, p.Stack)
			})
			t.Run("ResearchExperimentDrivenByStatusAndNext", func(t *testing.T) {
				t.Parallel()
				prodResearchExperiment(t, p, false)
			})
			t.Run("SandboxRoundTrip", func(t *testing.T) {
				t.Parallel()
				prodSandboxRoundTrip(t, p)
			})
			t.Run("FlywheelClaimHeartbeatOutput", func(t *testing.T) {
				t.Parallel()
				prodFlywheel(t, p)
			})
			t.Run("FlyLabInspectDuringRunOnAnotherReplica", func(t *testing.T) {
				t.Parallel()
				checkInspectDuringRun(t, withAgentKey(t, p.Stack, "prod-read-route"))
			})
		})
		served := p.Prod.Front.Served()
		for i, n := range served {
			if n < 10 {
				t.Fatalf("api replica %d served %d requests through the front (%v): the front did not spread the load", i, n, served)
			}
		}
		t.Logf("requests per api replica through the front: %v", served)
	})
	t.Run("WorkerKilledMidFlyLabAndResearch", func(t *testing.T) { prodWorkerKilled(t, p) })
}

// prodResearchExperiment creates a project and drives one experiment to
// complete, doing only what workflow.status_and_next names; uploads go to
// the URL the api hands out (the front) and land in the shared store.
func prodResearchExperiment(t *testing.T, p *prodStack, retrying bool) string {
	op := connectResearch(t, p.Stack, p.OperatorToken)
	op.retrying = retrying
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("prod")}), "project", "id"))
	agent := connectResearch(t, p.Stack, p.APIKey)
	agent.retrying = retrying
	exp := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "prod-run", "intent": "production shape"})["experiment_id"])
	logHistoryIfFailed(t, rwf.ExperimentWorkflowID(exp), func() (client.Client, error) {
		return client.Dial(client.Options{HostPort: p.Prod.TemporalAddress, Namespace: p.Prod.Namespace, Logger: quietSDKLogger()})
	})
	driveExperiment(t, agent, pid, exp, func(string, int) verdict { return verdict{"pass", ""} })
	st := agent.must("workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": exp})
	if dig(st, "workflow", "status") != "complete" {
		t.Fatalf("final: %v", st["workflow"])
	}
	ex := agent.must("experiment.exhibit", map[string]any{"project_id": pid, "experiment_id": exp})
	if files, _ := ex["files"].([]any); len(files) != 1 {
		t.Fatalf("exhibit (artifact bytes read back through another replica): %v", ex)
	}
	return exp
}

// prodSandboxRoundTrip requests a local sandbox (held by one worker host),
// runs a command over SSH, reads its runs and pulls an output through the
// api replicas (which read it through that host's task queue), and releases it.
func prodSandboxRoundTrip(t *testing.T, p *prodStack) {
	op := connectResearch(t, p.Stack, p.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("prod-sandbox")}), "project", "id"))
	agent := connectResearch(t, p.Stack, p.APIKey)
	exp := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "sandbox-exp"})["experiment_id"])
	key, pub := sandboxKey(t)
	sb := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pub, "time_limit": 600})
	uid := str(sb["sandbox_uid"])
	c, err := sshDial(sb, key)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.CombinedOutput(`mkdir -p results && echo '{"ok": 1}' > results/out.json && echo done`)
	_ = sess.Close()
	_ = c.Close()
	if err != nil || strings.TrimSpace(string(out)) != "done" {
		t.Fatalf("ssh: %q %v", out, err)
	}
	for i := 0; i < 4; i++ { // consecutive calls land on both replicas
		runs := agent.must("sandbox.runs", map[string]any{"project_id": pid, "sandbox_uid": uid, "wait_seconds": 5})
		if list, _ := runs["runs"].([]any); len(list) != 1 || dig(list[0], "exit_code") != 0.0 {
			t.Fatalf("sandbox.runs #%d: %v", i, runs)
		}
	}
	pulled := agent.must("sandbox.pull_outputs", map[string]any{"project_id": pid, "sandbox_uid": uid, "paths": []string{"results/out.json"}})
	o := pulled["outputs"].([]any)[0]
	if dig(o, "sha256") != digest([]byte("{\"ok\": 1}\n")) || dig(o, "status") != "available" {
		t.Fatalf("pull_outputs: %v", pulled)
	}
	// Pinned, the pulled result file joins the experiment's exhibit, read
	// from the shared store by whichever replica answers.
	agent.must("storage.object", map[string]any{"project_id": pid, "object_id": dig(o, "object_id"), "action": "pin"})
	ex := agent.must("experiment.exhibit", map[string]any{"project_id": pid, "experiment_id": exp})
	if files, _ := ex["files"].([]any); len(files) != 1 || dig(files[0], "object_id") != dig(o, "object_id") || dig(files[0], "metrics", "ok") != 1.0 {
		t.Fatalf("exhibit of the pinned pulled output: %v", ex)
	}
	rel := agent.must("sandbox.release", map[string]any{"project_id": pid, "experiment_id": exp, "confirm_retained": true})
	if rel["released"] != true {
		t.Fatalf("release: %v", rel)
	}
}

// prodFlywheel enqueues a rollout and takes it through claim, heartbeats
// (each through the next replica) and output.
func prodFlywheel(t *testing.T, p *prodStack) {
	id := enqueueOne(t, p.Stack, "production turn")
	r := p.Do(t, http.MethodPost, "/flywheel/claim", p.APIKey, map[string]any{"max_rollouts": 1, "lease_s": 30})
	var c claimed
	r.JSON(t, &c)
	if r.Status != http.StatusOK || len(c.Rollouts) != 1 || c.Rollouts[0].RolloutID != id {
		t.Fatalf("claim: %d %s", r.Status, r.Body)
	}
	ro := c.Rollouts[0]
	lease := []string{"Flywheel-Lease-Token", ro.LeaseToken}
	for i := 0; i < 4; i++ {
		if hb := p.Do(t, http.MethodPost, "/flywheel/rollouts/"+id+"/heartbeat", ro.APIKey, nil, lease...); hb.Status != http.StatusOK {
			t.Fatalf("heartbeat %d: %d %s", i, hb.Status, hb.Body)
		}
	}
	out := p.Do(t, http.MethodPost, "/flywheel/rollouts/"+id+"/output", ro.APIKey,
		map[string]any{"final_text": "done", "tool_calls": []any{}, "llm_call_count": 0}, lease...)
	if out.Status != http.StatusOK {
		t.Fatalf("output: %d %s", out.Status, out.Body)
	}
	waitRollout(t, p.Stack, id, func(r rolloutRecord) bool { return r.Status == "completed" && r.Attempts == 1 })
}

// prodWorkerKilled SIGKILLs the worker running a FlyLab simulation while a
// research experiment is being driven: both finish on the surviving
// worker, every answer either succeeded or was marked retryable and
// succeeded on retry, a new key's first call succeeds, and PostgreSQL
// holds no duplicate.
func prodWorkerKilled(t *testing.T, p *prodStack) {
	c := loadFlyContract(t)
	tc, err := client.Dial(client.Options{HostPort: p.Prod.TemporalAddress, Namespace: p.Prod.Namespace, Logger: quietSDKLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	call := func(tool string, args any) map[string]any {
		env, _ := flyCallRetrying(t, p.Stack, c, p.APIKey, tool, args)
		return env
	}
	sid, hyp, draftRev := draftMDNHypothesis(t, call)
	args := designArgs(sid, draftRev, hyp, 7)
	args["replicates"], args["trial_duration_ms"], args["duration_ms"] = 20, 10000, 5000
	exp := mustOK(t, call("design_stimulation_trial", args))["experiment"].(map[string]any)
	expID, hash := exp["id"].(string), exp["protocolHash"].(string)
	if r := p.Do(t, http.MethodPost, "/operator/v1/flylab/experiments/"+expID+"/approve", p.OperatorToken,
		map[string]any{"protocol_hash": hash}); r.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	cur := call("inspect_flylab_state", nil)
	ran := make(chan map[string]any, 1)
	go func() {
		defer close(ran)
		t.Run("run_fly_simulation", func(t *testing.T) {
			env, _ := flyCallRetrying(t, p.Stack, c, p.APIKey, "run_fly_simulation", map[string]any{"page_session_id": sid,
				"expected_state_revision": cur["state_revision"], "experiment_id": expID, "approved_protocol_hash": hash, "operation_id": "prod-kill-1"})
			ran <- env
		})
	}()
	// The research experiment starts with the simulation, so the kill
	// lands in the middle of both.
	researchDone := make(chan string, 1)
	go func() {
		defer close(researchDone)
		// t.Fatal inside prodResearchExperiment ends only this goroutine's
		// test function; run it as a subtest so failures are reported.
		t.Run("research", func(t *testing.T) { researchDone <- prodResearchExperiment(t, p, true) })
	}()
	// Both subtests must end before this test does, even when it fails early.
	defer func() {
		for range researchDone {
		}
		for range ran {
		}
	}()

	victim := simulatingWorker(t, tc, p.Prod, sid)
	victim.Kill()
	t.Logf("SIGKILLed %s while it ran the simulation", victim.Name)

	// A key minted after the kill: its first call must simply succeed.
	fresh := mintAgentKey(t, p.Stack, "e2e agent", true)
	if env := flyTool(t, p.Stack, c, fresh, "inspect_flylab_state", nil); env["ok"] != true {
		t.Fatalf("a new key's first call after the kill failed: %v", env["error"])
	}
	var run map[string]any
	select {
	case env, ok := <-ran:
		if !ok {
			t.Fatal("run_fly_simulation failed across the worker kill")
		}
		run = env
	case <-time.After(3 * time.Minute):
		t.Fatal("run_fly_simulation never finished on the surviving worker")
	}
	batchID := mustOK(t, run)["id"].(string)
	analyzed := call("analyze_fly_behavior", map[string]any{"page_session_id": sid, "expected_state_revision": run["state_revision"],
		"batch_id": batchID, "metrics": mdnPanel})
	analysisID := mustOK(t, analyzed)["analysis"].(map[string]any)["id"].(string)
	compared := call("compare_fly_trials", map[string]any{"page_session_id": sid, "expected_state_revision": analyzed["state_revision"],
		"analysis_ids": []string{analysisID}, "objective_metric": "backward_distance_mm", "objective": "maximize"})
	saved := call("save_fly_evidence", map[string]any{"page_session_id": sid, "expected_state_revision": compared["state_revision"],
		"scope": "experiment", "hypothesis_id": hyp, "experiment_id": expID, "batch_ids": []string{batchID},
		"analysis_ids": []string{analysisID}, "comparison_id": mustOK(t, compared)["comparison"].(map[string]any)["id"],
		"operation_id": "prod-kill-save"})
	mustOK(t, saved)
	researchExp, ok := <-researchDone
	if !ok || researchExp == "" {
		t.Fatal("the research experiment did not complete across the worker kill")
	}

	db := p.db(t)
	ctx := context.Background()
	if n, err := flymodels.CountBatches(ctx, db, expID); err != nil || n != 1 {
		t.Fatalf("batches for %s: %d (%v)", expID, n, err)
	}
	var analyses, submitted, open int64
	db.Model(&flymodels.Analysis{}).Where("batch_id = ?", batchID).Count(&analyses)
	db.Model(&research.ReviewRequest{}).Where("target_id = ? AND status = ?", researchExp, research.ReviewSubmitted).Count(&submitted)
	db.Model(&research.ReviewRequest{}).Where("target_id = ? AND status = ?", researchExp, research.ReviewRequested).Count(&open)
	if analyses != 1 || submitted != 2 || open != 0 {
		t.Fatalf("duplicates: %d analyses of the batch, %d submitted and %d open review requests of the experiment", analyses, submitted, open)
	}
}

// simulatingWorker waits until the session's simulation activity has
// heartbeated and returns the worker process running it.
func simulatingWorker(t *testing.T, c client.Client, s *prodlike.Stack, sid string) *prodlike.Proc {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		desc, err := c.DescribeWorkflowExecution(context.Background(), wf.SessionWorkflowID(sid), "")
		if err == nil {
			for _, a := range desc.GetPendingActivities() {
				if a.GetActivityType().GetName() != wf.ActivitySimulate || a.GetHeartbeatDetails() == nil {
					continue
				}
				for _, w := range s.Workers {
					if strings.HasPrefix(a.GetLastWorkerIdentity(), strconv.Itoa(w.Pid())+"@") {
						return w
					}
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the simulation never heartbeated on a known worker")
	return nil
}
