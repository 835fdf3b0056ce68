package research

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// mlflowServer replays MLflow's documented REST protocol: it answers only
// the exact calls of the 2.0 API (method, path, required body fields) and
// records them in order.
type mlflowServer struct {
	t     *testing.T
	mu    sync.Mutex
	calls []string
	exps  map[string]string
	batch map[string]any
}

func (m *mlflowServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var body map[string]any
	if r.Method == http.MethodPost {
		if r.Header.Get("Content-Type") != "application/json" {
			m.t.Errorf("%s: content type %q", r.URL.Path, r.Header.Get("Content-Type"))
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			m.t.Errorf("%s: body %q", r.URL.Path, raw)
		}
	}
	call := r.Method + " " + r.URL.Path
	m.calls = append(m.calls, call)
	need := func(fields ...string) bool {
		for _, f := range fields {
			if body[f] == nil {
				m.t.Errorf("%s lacks %s: %v", call, f, body)
				w.WriteHeader(400)
				return false
			}
		}
		return true
	}
	switch call {
	case "GET /api/2.0/mlflow/experiments/get-by-name":
		id, ok := m.exps[r.URL.Query().Get("experiment_name")]
		if !ok {
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"error_code":"RESOURCE_DOES_NOT_EXIST","message":"no experiment"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"experiment": map[string]any{"experiment_id": id, "name": r.URL.Query().Get("experiment_name")}})
	case "POST /api/2.0/mlflow/experiments/create":
		if need("name") {
			m.exps[body["name"].(string)] = "17"
			_, _ = w.Write([]byte(`{"experiment_id":"17"}`))
		}
	case "POST /api/2.0/mlflow/runs/create":
		if need("experiment_id", "start_time", "tags") {
			tags, _ := json.Marshal(body["tags"])
			if body["experiment_id"] != "17" || !strings.Contains(string(tags), "gatehouse.project_id") || !strings.Contains(string(tags), "gatehouse.experiment_id") {
				m.t.Errorf("runs/create %v", body)
			}
			_, _ = w.Write([]byte(`{"run":{"info":{"run_id":"run-1","experiment_id":"17","status":"RUNNING"}}}`))
		}
	case "POST /api/2.0/mlflow/runs/log-batch":
		if need("run_id", "metrics", "params") {
			m.batch = body
			_, _ = w.Write([]byte(`{}`))
		}
	case "POST /api/2.0/mlflow/runs/update":
		if need("run_id", "status", "end_time") && body["status"] != "FINISHED" {
			m.t.Errorf("runs/update %v", body)
		}
		_, _ = w.Write([]byte(`{"run_info":{"run_id":"run-1","status":"FINISHED"}}`))
	default:
		m.t.Errorf("undocumented call %s", call)
		w.WriteHeader(404)
	}
}

// mlflowService is a tracking-enabled service whose MLflow server is h,
// with project prj_1, its experiment exp_1 (lr-sweep) and exp_1's result
// artifact holding metrics.
func mlflowService(t *testing.T, h http.Handler, metrics []byte) *Service {
	t.Helper()
	db := modelstest.SQLite(t)
	blobs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	cat, err := NewCatalogue(config.Features{Tracking: true})
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{DB: db, Blobs: blobs, Cat: cat, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Config: config.Config{MLflowTrackingURI: ts.URL}}
	db.Create(&models.Project{ID: "prj_1", Name: "vision", CreatedBy: "c"})
	db.Create(&models.Experiment{ID: "exp_1", ProjectID: "prj_1", Name: "lr-sweep", Status: "complete"})
	now := time.Now().UTC()
	if _, err := blobs.Put(context.Background(), "m/metrics.json", bytes.NewReader(metrics), 0); err != nil {
		t.Fatal(err)
	}
	db.Create(&models.Artifact{ID: "art_1", ProjectID: "prj_1", TargetType: "experiment", TargetID: "exp_1", Role: "result",
		Path: "results/metrics.json", UploadTokenHash: "h", BlobKey: "m/metrics.json", UploadedAt: &now})
	return s
}

func TestMLflow_FinalizeRunSpeaksTheDocumentedProtocolOnce(t *testing.T) {
	ctx := context.Background()
	srv := &mlflowServer{t: t, exps: map[string]string{}}
	s := mlflowService(t, srv, []byte(`{"accuracy":0.91,"loss":{"val":0.3}}`))
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	args := []byte(`{"project_id":"prj_1","experiment_id":"exp_1"}`)

	out, terr := s.Invoke(ctx, agent, "mlflow.context", args)
	if terr != nil || out.(mlflowAnswer).RunID != "run-1" {
		t.Fatalf("context: %v %v", out, terr)
	}
	out, terr = s.Invoke(ctx, agent, "mlflow.finalize_run", args)
	if terr != nil || out.(mlflowAnswer).LoggedMetrics == nil || *out.(mlflowAnswer).LoggedMetrics != 2 {
		t.Fatalf("finalize: %v %v", out, terr)
	}
	if again, terr := s.Invoke(ctx, agent, "mlflow.finalize_run", args); terr != nil || !again.(mlflowAnswer).Replayed {
		t.Fatalf("second finalize: %v %v", again, terr)
	}
	want := []string{"GET /api/2.0/mlflow/experiments/get-by-name", "POST /api/2.0/mlflow/experiments/create",
		"POST /api/2.0/mlflow/runs/create", "POST /api/2.0/mlflow/runs/log-batch", "POST /api/2.0/mlflow/runs/update"}
	if strings.Join(srv.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(srv.calls, "\n"), strings.Join(want, "\n"))
	}
	raw, _ := json.Marshal(srv.batch)
	for _, frag := range []string{`"key":"accuracy","step":0`, `"key":"loss.val"`, `"key":"gatehouse.experiment_name","value":"lr-sweep"`} {
		if !strings.Contains(string(raw), frag) {
			t.Errorf("log-batch lacks %s: %s", frag, raw)
		}
	}
	// Bad input: an experiment of no project changes nothing and calls nothing.
	n := len(srv.calls)
	if _, terr := s.Invoke(ctx, agent, "mlflow.context", []byte(`{"project_id":"prj_1","experiment_id":"nope"}`)); terr == nil || terr.Code != "not_found" {
		t.Fatalf("unknown experiment: %v", terr)
	}
	if len(srv.calls) != n {
		t.Fatal("a refused call reached MLflow")
	}
}
