package e2e

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
	resmodels "github.com/gatehouse/gatehouse/models/research"
)

// duplicates is how many copies of one request each case sends at once.
const duplicates = 100

// sendConcurrently posts the same body n times at once and returns every
// response.
func sendConcurrently(t *testing.T, s *Stack, n int, path, token string, body any) []Response {
	t.Helper()
	out := make([]Response, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	took := make([]time.Duration, n)
	for i := range out {
		wg.Go(func() {
			start := time.Now()
			out[i], errs[i] = post(s.APIURL+path, token, body, 2*time.Minute)
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	slices.Sort(took)
	t.Logf("%d concurrent POST %s: p50 %s, p99 %s, max %s", n, path, took[n/2].Round(time.Millisecond),
		took[n*99/100].Round(time.Millisecond), took[n-1].Round(time.Millisecond))
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestFault_DuplicateDeliveryStoresOneRecord sends the same research
// idempotency_key and flywheel (agent_id, turn_id) 100 times concurrently,
// and the same FlyLab run_fly_simulation and save_fly_evidence operation_id
// 100 times each, and finds exactly one stored record of each, on
// PostgreSQL. Every FlyLab copy answers the one result (the API joins
// concurrent copies into one Update; the rest are idempotent replays).
func TestFault_DuplicateDeliveryStoresOneRecord(t *testing.T) {
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}})
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	count := func(model any, where string, args ...any) int64 {
		var n int64
		if err := db.Model(model).Where(where, args...).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("flylab run_fly_simulation operation_id", func(t *testing.T) {
		c := loadFlyContract(t)
		a := approveFlyExperiment(t, s, c, nil)
		batches := map[any]bool{}
		replays := 0
		for _, r := range sendConcurrently(t, s, duplicates, "/v1/flylab/tools/run_fly_simulation", s.APIKey, a.runArgs(a.rev, "dup-run")) {
			var env map[string]any
			r.JSON(t, &env)
			batches[mustOK(t, env)["id"]] = true
			if env["idempotent_replay"] == true {
				replays++
			}
		}
		if n := count(&flymodels.Batch{}, "experiment_id = ?", a.expID); n != 1 || len(batches) != 1 || replays != duplicates-1 {
			t.Fatalf("stored %d batches, answered %d distinct ids, %d replays of %d copies", n, len(batches), replays, duplicates)
		}
	})

	t.Run("flylab save_fly_evidence operation_id", func(t *testing.T) {
		// A second agent key: FlyLab keeps one session per credential, and
		// the run subtest above already used the development key's.
		via := withAgentKey(t, s, "dup-evidence")
		c := loadFlyContract(t)
		a := approveFlyExperiment(t, via, c, nil)
		save := savePipeline(t, via, c, a, "dup-save")
		bundles := map[any]bool{}
		for _, r := range sendConcurrently(t, via, duplicates, "/v1/flylab/tools/save_fly_evidence", via.APIKey, save) {
			var env map[string]any
			r.JSON(t, &env)
			bundles[mustOK(t, env)["bundle"].(map[string]any)["id"]] = true
		}
		if n := count(&flymodels.EvidenceBundle{}, "session_id = ?", a.sid); n != 1 || len(bundles) != 1 {
			t.Fatalf("stored %d evidence bundles, answered %d distinct ids", n, len(bundles))
		}
	})

	t.Run("research candidate.submit idempotency_key", func(t *testing.T) {
		r := s.Do(t, http.MethodPost, "/v1/research/tools/project", s.OperatorToken, map[string]any{"action": "create", "name": uniq("dup")})
		var proj map[string]any
		r.JSON(t, &proj)
		pid := str(dig(proj, "project", "id"))
		if r.Status != http.StatusOK || pid == "" {
			t.Fatalf("project create: %d %s", r.Status, r.Body)
		}
		args := map[string]any{"project_id": pid, "name": "c", "source_kind": "artifact", "source_ref": "r",
			"metrics": map[string]any{"acc": 0.9}, "primary_metric": "acc", "validation_summary": "v", "idempotency_key": "dup-key"}
		ids := map[string]bool{}
		for _, r := range sendConcurrently(t, s, duplicates, "/v1/research/tools/candidate.submit", s.APIKey, args) {
			var out map[string]any
			r.JSON(t, &out)
			if r.Status != http.StatusOK {
				t.Fatalf("submit: %d %s", r.Status, r.Body)
			}
			ids[str(out["candidate_id"])] = true
		}
		if n := count(&resmodels.Candidate{}, "project_id = ? AND idempotency_key = ?", pid, "dup-key"); n != 1 || len(ids) != 1 {
			t.Fatalf("stored %d candidates, answered %d distinct ids", n, len(ids))
		}
	})

	t.Run("flywheel turns (agent_id, turn_id)", func(t *testing.T) {
		body := map[string]any{"agent_id": "dup-agent", "turns": []any{map[string]any{"turn_id": "dup-turn", "input_text": "hi",
			"final_text": "ok", "tool_calls": []any{}, "tool_calls_omitted_count": 0}}}
		for _, r := range sendConcurrently(t, s, duplicates, "/flywheel/turns", s.APIKey, body) {
			if r.Status != http.StatusAccepted {
				t.Fatalf("turns: %d %s", r.Status, r.Body)
			}
		}
		if n := count(&fwmodels.Turn{}, "agent_id = ? AND turn_id = ?", "dup-agent", "dup-turn"); n != 1 {
			t.Fatalf("stored %d turns", n)
		}
	})
}

// withAgentKey mints an agent key and returns a view of s that calls with
// it, so a test gets a FlyLab session of its own.
func withAgentKey(t testing.TB, s *Stack, name string) *Stack {
	t.Helper()
	dev := *s.DevStack
	dev.APIKey = mintAgentKey(t, s, name, false)
	return &Stack{DevStack: &dev, DataDir: s.DataDir, Env: s.Env, t: t}
}

// mintAgentKey asks the api, as its operator, for an agent key (with
// access to every project when allProjects) and returns its plaintext.
func mintAgentKey(t testing.TB, s *Stack, name string, allProjects bool) string {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/operator/v1/keys", s.OperatorToken, map[string]any{"role": "agent", "name": name, "all_projects": allProjects})
	var minted struct {
		Plaintext string `json:"plaintext"`
	}
	r.JSON(t, &minted)
	if r.Status != http.StatusCreated || minted.Plaintext == "" {
		t.Fatalf("mint %s: %d %s", name, r.Status, r.Body)
	}
	return minted.Plaintext
}

// savePipeline runs, analyzes and compares the approved experiment and
// returns save_fly_evidence arguments with operation_id op.
func savePipeline(t testing.TB, s *Stack, c flyContract, a flyApproved, op string) map[string]any {
	t.Helper()
	return saveArgsAfterRun(t, s, c, a, flyTool(t, s, c, s.APIKey, "run_fly_simulation", a.runArgs(a.rev, op+"-run")), op)
}

// saveArgsAfterRun analyzes and compares the batch of run envelope ran and
// returns save_fly_evidence arguments with operation_id op.
func saveArgsAfterRun(t testing.TB, s *Stack, c flyContract, a flyApproved, ran map[string]any, op string) map[string]any {
	t.Helper()
	call := func(tool string, args any) map[string]any { return flyTool(t, s, c, s.APIKey, tool, args) }
	batchID := mustOK(t, ran)["id"].(string)
	analyzed := call("analyze_fly_behavior", map[string]any{"page_session_id": a.sid, "expected_state_revision": ran["state_revision"],
		"batch_id": batchID, "metrics": mdnPanel})
	anID := mustOK(t, analyzed)["analysis"].(map[string]any)["id"].(string)
	compared := call("compare_fly_trials", map[string]any{"page_session_id": a.sid, "expected_state_revision": analyzed["state_revision"],
		"analysis_ids": []string{anID}, "objective_metric": "backward_distance_mm", "objective": "maximize"})
	cmpID := mustOK(t, compared)["comparison"].(map[string]any)["id"].(string)
	return map[string]any{"page_session_id": a.sid, "expected_state_revision": compared["state_revision"],
		"scope": "mission", "hypothesis_id": a.hyp, "experiment_id": a.expID, "batch_ids": []string{batchID},
		"analysis_ids": []string{anID}, "comparison_id": cmpID, "note": "sent many times", "operation_id": op}
}
