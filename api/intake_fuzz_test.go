package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/models"
	"github.com/gatehouse/gatehouse/models/platform"
)

// fuzzServer is a Gin engine built by New on a migrated SQLite database,
// with no Temporal client: every intake under fuzz must answer from
// validation or the database alone.
type fuzzServer struct {
	srv   *Server
	db    *gorm.DB
	creds testCreds
}

func newFuzzServer(tb testing.TB) *fuzzServer { return newFuzzServerWith(tb, nil) }

// newFuzzServerWith is the fuzz server with tc as its Temporal client
// (nil: none).
func newFuzzServerWith(tb testing.TB, tc client.Client) *fuzzServer {
	tb.Helper()
	cfg, err := config.FromLookup(func(string) (string, bool) { return "", false })
	if err != nil {
		tb.Fatal(err)
	}
	cfg.MaxBodyBytes = 1 << 14
	tel, err := telemetry.New(context.Background(), "")
	if err != nil {
		tb.Fatal(err)
	}
	db, err := models.Open("sqlite:" + filepath.Join(tb.TempDir(), "fuzz.db"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := models.Migrate(db, slog.New(slog.DiscardHandler)); err != nil {
		tb.Fatal(err)
	}
	deps := Deps{Config: cfg, DB: db, Telemetry: tel, Log: slog.New(slog.DiscardHandler)}
	if tc != nil {
		deps.Temporal = tc
	}
	srv, err := New(deps)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	agent, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleAgent, Name: "agent"})
	if err != nil {
		tb.Fatal(err)
	}
	op, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleOperator, Name: "op"})
	if err != nil {
		tb.Fatal(err)
	}
	return &fuzzServer{srv: srv, db: db, creds: testCreds{agent: agent.Plaintext, operator: op.Plaintext}}
}

// rows counts the rows of every table, to prove a rejection stored nothing.
func (f *fuzzServer) rows(t *testing.T) map[string]int64 {
	t.Helper()
	var tables []string
	if err := f.db.Raw(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).Scan(&tables).Error; err != nil {
		t.Fatal(err)
	}
	out := make(map[string]int64, len(tables))
	for _, name := range tables {
		var n int64
		if err := f.db.Table(name).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		out[name] = n
	}
	return out
}

// call posts body and fails the test on a 5xx; when rejected reports
// whether the intake refused the input, it also fails if any table grew.
func (f *fuzzServer) call(t *testing.T, path, token string, body []byte, rejected func(status int, body []byte) bool) {
	t.Helper()
	before := f.rows(t)
	rec := do(t, f.srv.Engine, http.MethodPost, path, token, string(body))
	if rec.Code >= 500 {
		t.Fatalf("POST %s answered %d for %q: %s", path, rec.Code, body, rec.Body)
	}
	if !rejected(rec.Code, rec.Body.Bytes()) {
		return
	}
	for table, n := range f.rows(t) {
		if n != before[table] {
			t.Fatalf("POST %s rejected %q (%d) but table %s went from %d to %d rows", path, body, rec.Code, table, before[table], n)
		}
	}
}

// httpRejected: any 4xx is a rejection.
func httpRejected(status int, _ []byte) bool { return status >= 400 }

// flyLabTools are the FlyLab tools that validate before touching Temporal
// (inspect_flylab_state creates a session workflow, so it is left out).
var flyLabTools = []string{"find_fly_circuits", "draft_fly_hypothesis", "design_stimulation_trial", "run_fly_simulation",
	"analyze_fly_behavior", "compare_fly_trials", "save_fly_evidence", "visible_operator_approval", "no_such_tool"}

// FuzzFlyLabToolArgs: no argument body makes POST /v1/flylab/tools/:name
// panic or answer 5xx, and a refused call (HTTP 4xx or an ok:false
// envelope) stores nothing.
func FuzzFlyLabToolArgs(f *testing.F) {
	for i, s := range []string{`{}`, `{"page_session_id":"s","expected_state_revision":0,"query":"q"}`,
		`{"page_session_id":"session_x","expected_state_revision":1,"experiment_id":"e","approved_protocol_hash":"sha256:00","operation_id":"op"}`,
		`{"page_session_id":1e400}`, `[`, `null`, `"x"`, `{"a":` + strings.Repeat(`[`, 200) + `}`, "\x00\xff"} {
		f.Add(uint8(i), []byte(s))
	}
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, tool uint8, body []byte) {
		name := flyLabTools[int(tool)%len(flyLabTools)]
		fs.call(t, "/v1/flylab/tools/"+name, fs.creds.agent, body, func(status int, raw []byte) bool {
			var env struct {
				OK *bool `json:"ok"`
			}
			if status >= 400 {
				return true
			}
			if json.Unmarshal(raw, &env) != nil || env.OK == nil {
				t.Fatalf("%s answered %d without an envelope: %s", name, status, raw)
			}
			return !*env.OK
		})
	})
}

// researchTools are research tools that answer from the database alone.
var researchTools = []string{"project", "project.get", "project.update", "claim.create", "claim.update", "claim.list",
	"candidate.submit", "candidate.stage", "candidate.promote", "candidate.list", "artifact.find", "reflection.get", "no.such.tool"}

// FuzzResearchToolArgs: no argument body makes POST /v1/research/tools/:name
// panic or answer 5xx, and a refused call stores nothing.
func FuzzResearchToolArgs(f *testing.F) {
	for i, s := range []string{`{}`, `{"action":"create","name":"p"}`, `{"project_id":"p","statement":"s","confidence":"sure"}`,
		`{"project_id":"p","name":"c","source_kind":"artifact","source_ref":"r","metrics":{"m":1},"primary_metric":"m","validation_summary":"v","idempotency_key":"k"}`,
		`{"project_id":"p","candidate_id":"c","expected_champion_id":"","reason":"short"}`, `{"metrics":{"m":1e400}}`, `[`, `null`, "\x00"} {
		f.Add(uint8(i), []byte(s))
	}
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, tool uint8, body []byte) {
		name := researchTools[int(tool)%len(researchTools)]
		fs.call(t, "/v1/research/tools/"+name, fs.creds.agent, body, httpRejected)
	})
}

// FuzzOperatorKeysMint: no body makes POST /operator/v1/keys panic or
// answer 5xx, and a refused mint stores no credential.
func FuzzOperatorKeysMint(f *testing.F) {
	for _, s := range []string{`{"role":"agent","name":"a"}`, `{"role":"operator","name":"o","all_projects":true}`,
		`{"role":"agent","name":"a","projects":["bad id!"]}`, `{"role":"root","name":"x"}`, `{"role":"agent","name":""}`,
		`{"role":"agent","name":"a","projects":[1]}`, `[`, `null`, ``} {
		f.Add([]byte(s))
	}
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fs.call(t, "/operator/v1/keys", fs.creds.operator, body, httpRejected)
	})
}
