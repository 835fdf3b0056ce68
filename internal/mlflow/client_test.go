package mlflow

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func makeBatchInput(np, nm, nt int) ([]Param, []Metric, []Tag) {
	var ps []Param
	var ms []Metric
	var ts []Tag
	for i := 0; i < np; i++ {
		ps = append(ps, Param{Key: fmt.Sprintf("p%04d", i), Value: "v"})
	}
	for i := 0; i < nm; i++ {
		ms = append(ms, Metric{Key: fmt.Sprintf("m%05d", i), Value: float64(i)})
	}
	for i := 0; i < nt; i++ {
		ts = append(ts, Tag{Key: fmt.Sprintf("t%04d", i), Value: "v"})
	}
	return ps, ms, ts
}

func TestSplitBatch_EveryBatchWithinLimitsAndNothingLost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ np, nm, nt, batches int }{
		{0, 0, 0, 1},
		{3, 2, 0, 1},
		{0, 1000, 0, 1},
		{3, 1000, 0, 2},
		{3, 2500, 0, 3},
		{100, 800, 100, 1},
		{250, 2500, 150, 3},
		{0, 0, 350, 4},
	} {
		ps, ms, ts := makeBatchInput(c.np, c.nm, c.nt)
		bs := splitBatch(ps, ms, ts)
		if len(bs) != c.batches {
			t.Errorf("%d params, %d metrics, %d tags: %d batches, want %d", c.np, c.nm, c.nt, len(bs), c.batches)
		}
		var gp []Param
		var gm []Metric
		var gt []Tag
		for i, b := range bs {
			if len(b.Params) > 100 || len(b.Metrics) > 1000 || len(b.Tags) > 100 || len(b.Params)+len(b.Metrics)+len(b.Tags) > 1000 {
				t.Errorf("%v: batch %d over the limits: %d params, %d metrics, %d tags", c, i, len(b.Params), len(b.Metrics), len(b.Tags))
			}
			gp, gm, gt = append(gp, b.Params...), append(gm, b.Metrics...), append(gt, b.Tags...)
		}
		if fmt.Sprint(gp) != fmt.Sprint(ps) || fmt.Sprint(gm) != fmt.Sprint(ms) || fmt.Sprint(gt) != fmt.Sprint(ts) {
			t.Errorf("%v: the batches do not carry every entity once, in order", c)
		}
	}
}

// logBatchServer records the bodies of runs/log-batch requests and refuses
// the request numbered failAt (1-based; 0 never).
type logBatchServer struct {
	mu     sync.Mutex
	bodies []map[string][]map[string]any
	failAt int
}

func (s *logBatchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/api/2.0/mlflow/runs/log-batch" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	got := map[string][]map[string]any{}
	for _, f := range []string{"params", "metrics", "tags"} {
		list, ok := body[f].([]any)
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error_code":"INVALID_PARAMETER_VALUE","message":"` + f + ` is not a list"}`))
			return
		}
		for _, e := range list {
			got[f] = append(got[f], e.(map[string]any))
		}
	}
	s.bodies = append(s.bodies, got)
	if body["run_id"] != "run-1" || len(s.bodies) == s.failAt {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error_code":"INVALID_PARAMETER_VALUE","message":"refused"}`))
		return
	}
	_, _ = w.Write([]byte(`{}`))
}

func TestLogBatch_SendsEveryMetricInRequestsWithinLimits(t *testing.T) {
	t.Parallel()
	srv := &logBatchServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c := &Client{BaseURL: ts.URL}
	ps, ms, _ := makeBatchInput(3, 2500, 0)
	now := time.Now().UnixMilli()
	for i := range ms {
		ms[i].Timestamp = now
	}
	if err := c.LogBatch(context.Background(), "run-1", ps, ms); err != nil {
		t.Fatal(err)
	}
	if len(srv.bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(srv.bodies))
	}
	seen := map[string]float64{}
	params := 0
	for i, b := range srv.bodies {
		if len(b["metrics"]) > 1000 || len(b["params"]) > 100 || len(b["tags"]) > 100 || len(b["metrics"])+len(b["params"])+len(b["tags"]) > 1000 {
			t.Errorf("request %d over the limits: %d metrics, %d params, %d tags", i, len(b["metrics"]), len(b["params"]), len(b["tags"]))
		}
		params += len(b["params"])
		for _, m := range b["metrics"] {
			k := m["key"].(string)
			if _, dup := seen[k]; dup {
				t.Errorf("metric %s sent twice", k)
			}
			seen[k] = m["value"].(float64)
			if m["timestamp"].(float64) != float64(now) {
				t.Errorf("metric %s timestamp %v", k, m["timestamp"])
			}
		}
	}
	if len(seen) != 2500 || params != 3 {
		t.Fatalf("%d metrics and %d params arrived, want 2500 and 3", len(seen), params)
	}
	for _, m := range ms {
		if v, ok := seen[m.Key]; !ok || v != m.Value {
			t.Fatalf("metric %s arrived as %v (%v), want %v", m.Key, v, ok, m.Value)
		}
	}
}

func TestLogBatch_StopsAtTheFirstRefusedRequest(t *testing.T) {
	t.Parallel()
	srv := &logBatchServer{failAt: 2}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	_, ms, _ := makeBatchInput(0, 2500, 0)
	err := (&Client{BaseURL: ts.URL}).LogBatch(context.Background(), "run-1", nil, ms)
	e, ok := err.(*Error)
	if !ok || e.Status != http.StatusBadRequest || e.ErrorCode != "INVALID_PARAMETER_VALUE" {
		t.Fatalf("err = %v, want the refusal", err)
	}
	if len(srv.bodies) != 2 {
		t.Fatalf("%d requests after a refusal at the second, want 2", len(srv.bodies))
	}
}
