package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// TestFault_APIRestartedMidFlyLabPipelineResumes runs the api and the
// worker as child processes on PostgreSQL, SIGKILLs the api while a
// simulation it started is running, and restarts it on the same address.
// The agent resumes through inspect_flylab_state, re-sends its run with the
// same operation_id and finishes the pipeline; Postgres holds exactly one
// batch, one analysis and one evidence bundle.
func TestFault_APIRestartedMidFlyLabPipelineResumes(t *testing.T) {
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	sp := startSplitStack(t, dbURL)
	s, via, base, api := sp.stack, sp.via, sp.base, sp.api

	c := loadFlyContract(t)
	call := func(tool string, args any) map[string]any { return flyTool(t, via, c, via.APIKey, tool, args) }
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	a := approveFlyExperiment(t, via, c, map[string]any{"replicates": 6})
	run := a.runArgs(a.rev, "run-restart")
	go func() { _, _ = post(base+"/v1/flylab/tools/run_fly_simulation", via.APIKey, run, time.Minute) }()
	tc := s.Client(t)
	// Kill the api once the run it accepted is under way in the worker.
	simulating := false
	waitFor(t, 30*time.Second, func() bool {
		simulating = activityPending(tc, a.sid, wf.ActivitySimulate)
		n, _ := flymodels.CountBatches(t.Context(), db, a.expID)
		return simulating || n > 0
	})
	api.Kill()
	t.Logf("api killed while the simulation activity was pending: %v", simulating)
	sp.restartAPI()

	// The agent lost its answer: it reads the state, then re-sends the run.
	cur := call("inspect_flylab_state", nil)
	if cur["page_session_id"] != a.sid {
		t.Fatalf("inspect after restart names session %v, want %s", cur["page_session_id"], a.sid)
	}
	save := saveArgsAfterRun(t, via, c, a, call("run_fly_simulation", run), "save-restart")
	mustOK(t, call("save_fly_evidence", save))

	for _, q := range []struct {
		what  string
		model any
		where string
		arg   string
	}{
		{"batches", &flymodels.Batch{}, "experiment_id = ?", a.expID},
		{"analyses", &flymodels.Analysis{}, "session_id = ?", a.sid},
		{"evidence bundles", &flymodels.EvidenceBundle{}, "session_id = ?", a.sid},
	} {
		var n int64
		if err := db.Model(q.model).Where(q.where, q.arg).Count(&n).Error; err != nil || n != 1 {
			t.Fatalf("%s: %d (%v)", q.what, n, err)
		}
	}
}

// startAPIProcess runs the api role in a child process and waits until it
// answers /readyz at base.
// splitStack is a dev stack (its Temporal server) with the worker and the
// api each in a process of their own on PostgreSQL, so either can be
// killed; via calls the api process.
type splitStack struct {
	t     *testing.T
	stack *Stack
	via   *Stack
	env   map[string]string
	base  string
	api   *Process
}

// startSplitStack starts a split stack on the PostgreSQL database dbURL.
func startSplitStack(t *testing.T, dbURL string) *splitStack {
	t.Helper()
	s := StartStack(t, StackOptions{NoWorker: true, Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}})
	StartRoleProcess(t, "worker", s.WorkerEnv(dbURL))
	env := s.WorkerEnv(dbURL)
	env["GATEHOUSE_HTTP_ADDR"] = freeAddr(t)
	base := "http://" + env["GATEHOUSE_HTTP_ADDR"]
	dev := *s.DevStack
	dev.APIURL = base
	return &splitStack{t: t, stack: s, via: &Stack{DevStack: &dev, DataDir: s.DataDir, Env: s.Env, t: t},
		env: env, base: base, api: startAPIProcess(t, env, base)}
}

// restartAPI starts a new api process on the same address (after the old
// one was killed).
func (sp *splitStack) restartAPI() { sp.api = startAPIProcess(sp.t, sp.env, sp.base) }

func startAPIProcess(t *testing.T, env map[string]string, base string) *Process {
	t.Helper()
	p := StartRoleProcess(t, "api", env)
	waitFor(t, 30*time.Second, func() bool {
		r, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		_ = r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	return p
}
