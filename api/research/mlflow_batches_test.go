package research

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse/gatehouse/models/platform"
)

// batchRecorder keeps every runs/log-batch body before handing the request
// on to the recorded-protocol server, which keeps only the last.
type batchRecorder struct {
	inner   *mlflowServer
	mu      sync.Mutex
	batches []map[string][]map[string]any
}

func (b *batchRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/api/2.0/mlflow/runs/log-batch" {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		got := map[string][]map[string]any{}
		for _, f := range []string{"metrics", "params", "tags"} {
			list, _ := body[f].([]any)
			for _, e := range list {
				got[f] = append(got[f], e.(map[string]any))
			}
		}
		b.mu.Lock()
		b.batches = append(b.batches, got)
		b.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(raw))
	}
	b.inner.ServeHTTP(w, r)
}

func TestMLflow_FinalizeRunSendsEveryMetricInBatchesWithinTheLimits(t *testing.T) {
	ctx := context.Background()
	const n = 2500
	doc := map[string]float64{}
	for i := 0; i < n; i++ {
		doc[fmt.Sprintf("m%04d", i)] = float64(i) / 4
	}
	raw, _ := json.Marshal(doc)
	inner := &mlflowServer{t: t, exps: map[string]string{}}
	srv := &batchRecorder{inner: inner}
	s := mlflowService(t, srv, raw)
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}

	out, terr := s.Invoke(ctx, agent, "mlflow.finalize_run", []byte(`{"project_id":"prj_1","experiment_id":"exp_1"}`))
	if terr != nil || out.(mlflowAnswer).LoggedMetrics == nil || *out.(mlflowAnswer).LoggedMetrics != n {
		t.Fatalf("finalize: %v %v", out, terr)
	}
	want := []string{"GET /api/2.0/mlflow/experiments/get-by-name", "POST /api/2.0/mlflow/experiments/create",
		"POST /api/2.0/mlflow/runs/create", "POST /api/2.0/mlflow/runs/log-batch", "POST /api/2.0/mlflow/runs/log-batch",
		"POST /api/2.0/mlflow/runs/log-batch", "POST /api/2.0/mlflow/runs/update"}
	if strings.Join(inner.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(inner.calls, "\n"), strings.Join(want, "\n"))
	}
	seen := map[string]float64{}
	params := map[string]any{}
	for i, b := range srv.batches {
		nm, np, nt := len(b["metrics"]), len(b["params"]), len(b["tags"])
		if nm > 1000 || np > 100 || nt > 100 || nm+np+nt > 1000 {
			t.Errorf("log-batch %d over MLflow's limits: %d metrics, %d params, %d tags", i, nm, np, nt)
		}
		for _, m := range b["metrics"] {
			k := m["key"].(string)
			if _, dup := seen[k]; dup {
				t.Errorf("metric %s sent twice", k)
			}
			seen[k] = m["value"].(float64)
		}
		for _, p := range b["params"] {
			params[p["key"].(string)] = p["value"]
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct metrics arrived, want %d", len(seen), n)
	}
	for k, v := range doc {
		if seen[k] != v {
			t.Fatalf("metric %s arrived as %v, want %v", k, seen[k], v)
		}
	}
	if params["gatehouse.experiment_name"] != "lr-sweep" || len(params) != 3 {
		t.Errorf("params: %v", params)
	}
}
