package e2e

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
)

func TestPing_RoundTripThroughAPIAndTemporal(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	resp := s.Do(t, http.MethodPost, "/v1/ping", s.APIKey, map[string]any{"message": "hello"})
	if resp.Status != http.StatusOK {
		t.Fatalf("ping: %d %s", resp.Status, resp.Body)
	}
	var out struct {
		WorkflowID string `json:"workflow_id"`
		Status     string `json:"status"`
		Message    string `json:"message"`
		Reply      string `json:"reply"`
	}
	resp.JSON(t, &out)
	if out.Status != "completed" || out.Message != "hello" || out.Reply != "pong" || !strings.HasPrefix(out.WorkflowID, "ping/") {
		t.Fatalf("unexpected ping result %+v", out)
	}
	// The workflow really ran in Temporal and is findable by its search attributes.
	c := s.Client(t)
	desc, err := c.DescribeWorkflowExecution(context.Background(), out.WorkflowID, "")
	if err != nil {
		t.Fatal(err)
	}
	if desc.WorkflowExecutionInfo.Status != enums.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Fatalf("workflow status %v", desc.WorkflowExecutionInfo.Status)
	}
	if _, ok := desc.WorkflowExecutionInfo.SearchAttributes.GetIndexedFields()["GatehouseKind"]; !ok {
		t.Fatal("GatehouseKind search attribute not set")
	}
	writeHistory(t, s, out.WorkflowID, "platform/testdata/histories", "ping_round_trip")
}

func TestReadyz_NamesEachDependency(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	resp := s.Do(t, http.MethodGet, "/readyz", "", nil)
	var body map[string]string
	resp.JSON(t, &body)
	if resp.Status != http.StatusOK || body["database"] != "ok" || body["temporal"] != "ok" {
		t.Fatalf("readyz: %d %v", resp.Status, body)
	}
}

func TestPing_RequiresACredential(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	if r := s.Do(t, http.MethodPost, "/v1/ping", "", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("no key: %d", r.Status)
	}
	if r := s.Do(t, http.MethodPost, "/v1/ping", "mk_wrongwrongwrongwrong", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("wrong key: %d", r.Status)
	}
	if r := s.Do(t, http.MethodPost, "/v1/ping/does-not-exist/pong", s.APIKey, nil); r.Status != http.StatusNotFound {
		t.Fatalf("unknown ping: %d %s", r.Status, r.Body)
	}
}

func TestMetrics_IncludeHTTPAndTemporalSDK(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	s.Do(t, http.MethodPost, "/v1/ping", s.APIKey, nil)
	body := string(s.Do(t, http.MethodGet, "/metrics", "", nil).Body)
	for _, want := range []string{`gatehouse_http_requests_total{method="POST",route="/v1/ping",status="200"}`, "temporal_request", "temporal_workflow_completed"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestDev_RestartOnSameDataDirKeepsWorkflowsAndKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := StartStack(t, StackOptions{DataDir: dir, UI: true})
	if r, err := http.Get(first.UIURL); err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("temporal ui: %v %v", r, err)
	}
	workflowID := holdPing(t, first, "before restart")
	key := first.APIKey
	if err := first.Close(); err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}

	second := StartStack(t, StackOptions{DataDir: dir})
	if second.APIKey != key {
		t.Fatal("a restart must keep the dev API key")
	}
	var out struct{ Message, Status string }
	pong(t, second, workflowID).JSON(t, &out)
	if out.Message != "before restart" || out.Status != "completed" {
		t.Fatalf("unexpected %+v", out)
	}
	writeHistory(t, second, workflowID, "platform/testdata/histories", "ping_held_across_restart")
}

// holdPing starts a ping workflow on s that waits for its pong, and
// returns its workflow id.
func holdPing(t *testing.T, s *Stack, message string) string {
	t.Helper()
	held := s.Do(t, http.MethodPost, "/v1/ping", s.APIKey, map[string]any{"message": message, "hold": true})
	if held.Status != http.StatusAccepted {
		t.Fatalf("hold: %d %s", held.Status, held.Body)
	}
	var h struct {
		WorkflowID string `json:"workflow_id"`
	}
	held.JSON(t, &h)
	return h.WorkflowID
}

// pong sends the held ping workflowID its pong on s until it answers 200
// (a stack just started may not run it yet), for at most 30 s.
func pong(t *testing.T, s *Stack, workflowID string) Response {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for ; ; time.Sleep(200 * time.Millisecond) {
		r := s.Do(t, http.MethodPost, "/v1/ping/"+strings.TrimPrefix(workflowID, "ping/")+"/pong", s.APIKey, nil)
		if r.Status == http.StatusOK {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("pong: %d %s", r.Status, r.Body)
		}
	}
}

// TestDev_TemporalSQLiteRunsInWALMode guards the embedded server's pragmas:
// the SQL plugin turns unknown attributes into pragmas, and a misspelt one
// is silently ignored (leaving an fsync on every commit).
func TestDev_TemporalSQLiteRunsInWALMode(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.DataDir, "temporal.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Fatalf("temporal.db journal_mode = %q, want wal", mode)
	}
}
