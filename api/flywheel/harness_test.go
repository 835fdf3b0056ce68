package flywheel

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// fakeTemporal records what the handlers ask of Temporal.
type fakeTemporal struct {
	mu      sync.Mutex
	signals []string
	started []string
	failSig bool
	// gone, when set, answers every signal NotFound (the workflow ended).
	gone bool
	// leases are the lease signals' payloads by workflow id.
	leases map[string][]wf.LeaseUpdate
	// hold, when set, blocks every signal until it is closed (a slow
	// or unreachable Temporal).
	hold chan struct{}
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = append(f.started, o.ID)
	return nil, nil
}

func (f *fakeTemporal) SignalWorkflow(_ context.Context, id, _, name string, arg any) error {
	f.mu.Lock()
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		<-hold
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failSig {
		return context.DeadlineExceeded
	}
	if f.gone {
		return serviceerror.NewNotFound("workflow execution already completed")
	}
	f.signals = append(f.signals, name+" "+id)
	if u, ok := arg.(wf.LeaseUpdate); ok {
		if f.leases == nil {
			f.leases = map[string][]wf.LeaseUpdate{}
		}
		f.leases[id] = append(f.leases[id], u)
	}
	return nil
}

type testEnv struct {
	t        testing.TB
	h        *Handler
	db       *gorm.DB
	engine   *gin.Engine
	temporal *fakeTemporal
	agentKey string
	opToken  string
}

func newTestEnv(t testing.TB, opts Options) *testEnv {
	t.Helper()
	db, err := models.Open("sqlite:" + filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Migrate(db, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return newTestEnvOn(t, db, opts)
}

// eachTestEnv runs fn on a handler over SQLite and, when
// GATEHOUSE_TEST_DATABASE_URL is set, over PostgreSQL.
func eachTestEnv(t *testing.T, opts Options, fn func(t *testing.T, e *testEnv)) {
	t.Helper()
	for _, d := range modelstest.Open(t) {
		t.Run(d.Name, func(t *testing.T) { fn(t, newTestEnvOn(t, d.DB, opts)) })
	}
}

// newTestEnvOn mounts the handlers on a migrated database.
func newTestEnvOn(t testing.TB, db *gorm.DB, opts Options) *testEnv {
	t.Helper()
	ctx := context.Background()
	agent, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleAgent, Name: "agent", AllProjects: true})
	if err != nil {
		t.Fatal(err)
	}
	op, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleOperator, Name: "op"})
	if err != nil {
		t.Fatal(err)
	}
	ft := &fakeTemporal{}
	if opts.PublicURL == "" {
		opts.PublicURL = "http://gatehouse.test"
	}
	h, err := New(db, ft, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	gin.SetMode(gin.ReleaseMode)
	engine := gin.New()
	h.Mount(rest.NewRouter(engine, rest.NewDocument("t", "t")), rest.Deps{DB: db})
	return &testEnv{t: t, h: h, db: db, engine: engine, temporal: ft, agentKey: agent.Plaintext, opToken: op.Plaintext}
}

type result struct {
	Status int
	Body   []byte
	Header http.Header
}

func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %d %s: %v", r.Status, r.Body, err)
	}
}

func (e *testEnv) do(method, path, bearer string, body []byte, headers ...string) result {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, req)
	return result{Status: w.Code, Body: w.Body.Bytes(), Header: w.Header()}
}

// mintAgent mints another agent key limited to projects (none: no
// project at all) and returns its plaintext and credential id.
func (e *testEnv) mintAgent(name string, projects ...string) (string, string) {
	e.t.Helper()
	m, err := platform.Mint(context.Background(), e.db, platform.MintRequest{Role: platform.RoleAgent, Name: name, Projects: projects})
	if err != nil {
		e.t.Fatal(err)
	}
	return m.Plaintext, m.Credential.ID
}

// lease enqueues and claims one rollout directly in the database.
func (e *testEnv) lease(deadline time.Duration) fwmodels.Grant {
	e.t.Helper()
	id := fwmodels.NewRolloutID()
	if _, _, err := fwmodels.Enqueue(context.Background(), e.db, fwmodels.NewRollout{ID: id, TurnInput: "x", DeadlineAt: time.Now().Add(deadline), MaxAttempts: 3}); err != nil {
		e.t.Fatal(err)
	}
	gs, err := fwmodels.Claim(context.Background(), e.db, fwmodels.Claimant{CredentialID: "c", AllProjects: true}, 1, time.Minute, time.Now())
	if err != nil || len(gs) != 1 {
		e.t.Fatalf("claim: %v %d", err, len(gs))
	}
	return gs[0]
}

// signalled reports whether the fake was sent signal name for rollout id.
func (e *testEnv) signalled(name, rolloutID string) bool {
	return e.signalCount(name, rolloutID) > 0
}

// signalCount is how many times the fake was sent signal name for
// rollout id.
func (e *testEnv) signalCount(name, rolloutID string) int {
	e.temporal.mu.Lock()
	defer e.temporal.mu.Unlock()
	n := 0
	for _, s := range e.temporal.signals {
		if s == name+" "+wf.WorkflowID(rolloutID) {
			n++
		}
	}
	return n
}

// eventually fails the test unless cond holds within 5 seconds.
func (e *testEnv) eventually(what string, cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("not within 5s: %s", what)
		}
	}
}

// pendingNotices is the outbox's content.
func (e *testEnv) pendingNotices() []fwmodels.Notice {
	e.t.Helper()
	ns, err := fwmodels.PendingNotices(context.Background(), e.db)
	if err != nil {
		e.t.Fatal(err)
	}
	return ns
}

func (e *testEnv) output(g fwmodels.Grant, body string) result {
	return e.do(http.MethodPost, "/flywheel/rollouts/"+g.Rollout.ID+"/output", g.APIKey, []byte(body), LeaseTokenHeader, g.LeaseToken)
}

type violationBody struct {
	Error struct {
		Code    string `json:"code"`
		Details []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"details"`
	} `json:"error"`
}

// hasViolationAt reports whether a 422 body names path.
func hasViolationAt(t testing.TB, r result, path string) bool {
	t.Helper()
	var v violationBody
	r.decode(t, &v)
	for _, d := range v.Error.Details {
		if d.Path == path {
			return true
		}
	}
	return false
}

func (e *testEnv) mustSchema() *Handler {
	e.t.Helper()
	h, err := New(e.db, e.temporal, nil, Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}
