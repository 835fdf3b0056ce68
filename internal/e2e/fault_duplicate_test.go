package e2e

import (
	"net/http"
	"os"
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

// flyLabDuplicates is how many copies of one FlyLab run the CI form sends.
// Each copy is a Temporal Update on the one session workflow; above ~10 in
// flight (Temporal's per-workflow in-flight Update limit) the copies stall
// for about a minute and some answer a retryable SIMULATION_UNAVAILABLE,
// so the 100-copy form runs only with GATEHOUSE_FAULT_SLOW=1.
func flyLabDuplicates() int {
	if os.Getenv("GATEHOUSE_FAULT_SLOW") == "1" {
		return duplicates
	}
	return 10
}

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
// and the same FlyLab operation_id 10 times (100 with
// GATEHOUSE_FAULT_SLOW=1), and finds exactly one stored record of each, on
// PostgreSQL.
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
		for _, r := range sendConcurrently(t, s, flyLabDuplicates(), "/v1/flylab/tools/run_fly_simulation", s.APIKey, a.runArgs(a.rev, "dup-run")) {
			var env map[string]any
			r.JSON(t, &env)
			if e, _ := env["error"].(map[string]any); env["ok"] == false && e["code"] == "SIMULATION_UNAVAILABLE" && e["retryable"] == true {
				continue // told to retry: stored nothing on its own
			}
			batches[mustOK(t, env)["id"]] = true
		}
		if n := count(&flymodels.Batch{}, "experiment_id = ?", a.expID); n != 1 || len(batches) != 1 {
			t.Fatalf("stored %d batches, answered %d distinct ids", n, len(batches))
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
