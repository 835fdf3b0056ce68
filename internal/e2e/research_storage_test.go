package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	researchwf "github.com/gatehouse/gatehouse/workflows/research"
)

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// httpDo runs one plain HTTP request (what curl in a run command does).
func httpDo(t *testing.T, method, url string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// uploadObject performs a storage.submit answer: PUT the bytes, POST completion.
func uploadObject(t *testing.T, sub map[string]any, body []byte) (int, string) {
	t.Helper()
	if code, raw := httpDo(t, http.MethodPut, str(dig(sub, "upload", "url")), body); code != 200 {
		return code, string(raw)
	}
	code, raw := httpDo(t, http.MethodPost, str(dig(sub, "complete", "url")), nil)
	return code, string(raw)
}

func countRows(t *testing.T, db *gorm.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := db.Table(table).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// triggerSweep fires the storage sweep schedule and waits until cond holds.
func triggerSweep(t *testing.T, s *Stack, cond func() bool) {
	t.Helper()
	h := s.Client(t).ScheduleClient().GetHandle(context.Background(), "research-storage-sweep")
	if err := h.Trigger(context.Background(), client.ScheduleTriggerOptions{}); err != nil {
		t.Fatalf("trigger sweep schedule: %v", err)
	}
	waitFor(t, 20*time.Second, cond)
}

func TestStorage_ObjectUploadedFoundFetchedPinnedExpiredThroughMCP(t *testing.T) {
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_STORAGE_RETENTION": "2s"}})
	db := researchDB(t, s)
	op := connectResearch(t, s, s.OperatorToken)
	projectID := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-storage")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)

	// Upload by running the one-line command itself.
	data := []byte("label,pixel\n1,0.5\n")
	dir := t.TempDir()
	local := filepath.Join(dir, "train.csv")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := agent.must("storage.submit", map[string]any{"project_id": projectID, "path": local, "kind": "dataset", "sha256": digest(data),
		"size_bytes": len(data), "name": "train-set"})
	objA := str(sub["object_id"])
	if sub["status"] != "uploading" || !strings.HasPrefix(str(sub["run"]), "curl -sf -T '"+local+"' ") || strings.Count(str(sub["run"]), "\n") != 0 {
		t.Fatalf("storage.submit: %v", sub)
	}
	if _, err := exec.LookPath("curl"); err == nil {
		if out, err := exec.Command("sh", "-c", str(sub["run"])).CombinedOutput(); err != nil {
			t.Fatalf("run %q: %v %s", sub["run"], err, out)
		}
	} else if code, raw := uploadObject(t, sub, data); code != 200 {
		t.Fatalf("upload: %d %s", code, raw)
	}
	found := agent.must("storage.find", map[string]any{"project_id": projectID, "name": "train-set"})
	if found["total"] != 1.0 || dig(found["objects"].([]any)[0], "status") != "available" {
		t.Fatalf("find after upload: %v", found)
	}
	// Same name + digest is idempotent.
	again := agent.must("storage.submit", map[string]any{"project_id": projectID, "path": local, "kind": "dataset", "sha256": digest(data),
		"size_bytes": len(data), "name": "train-set"})
	if again["object_id"] != objA || again["upload_required"] != false {
		t.Fatalf("resubmit: %v", again)
	}

	// Bytes that do not match the declaration are rejected and not kept.
	weights := []byte("model weights v1")
	subB := agent.must("storage.submit", map[string]any{"project_id": projectID, "path": "w.bin", "kind": "model", "sha256": digest(weights), "size_bytes": len(weights)})
	objB := str(subB["object_id"])
	if code, raw := uploadObject(t, subB, []byte("model weights v2")); code != 400 || !strings.Contains(raw, "upload_rejected") {
		t.Fatalf("mismatch: %d %s", code, raw)
	}
	bytesOfB := filepath.Join(s.DataDir, "blobs", "research", projectID, "storage", objB+"*")
	if kept, _ := filepath.Glob(bytesOfB); len(kept) != 0 {
		t.Fatalf("rejected bytes kept: %v", kept)
	}
	if st := dig(agent.must("storage.find", map[string]any{"project_id": projectID, "object_id": objB})["objects"].([]any)[0], "status"); st != "uploading" {
		t.Fatalf("after mismatch: %v", st)
	}
	// The internal two-step upload (operator only) completes it.
	agent.refused("forbidden", "storage.put_object", map[string]any{"project_id": projectID, "object_id": objB})
	put := op.must("storage.put_object", map[string]any{"project_id": projectID, "object_id": objB})
	if code, raw := httpDo(t, http.MethodPut, str(dig(put, "upload", "url")), weights); code != 200 {
		t.Fatalf("put_object upload: %d %s", code, raw)
	}
	if done := op.must("storage.complete_upload", map[string]any{"project_id": projectID, "object_id": objB}); done["status"] != "available" {
		t.Fatalf("complete_upload: %v", done)
	}
	// Only the copy completion checked is kept, under a key no URL named.
	blobB := blobPath(t, s, db, objB)
	if kept, _ := filepath.Glob(bytesOfB); len(kept) != 1 || kept[0] != blobB {
		t.Fatalf("B's bytes after completion: %v, want only %s", kept, blobB)
	}

	// Fetch gives a one-line download command that returns the bytes.
	fetched := agent.must("storage.fetch", map[string]any{"project_id": projectID, "path": "out/train.csv", "name": "train-set"})
	if fetched["object_id"] != objA || !strings.HasPrefix(str(fetched["run"]), "curl -sf -o 'out/train.csv' ") {
		t.Fatalf("fetch: %v", fetched)
	}
	if code, got := httpDo(t, http.MethodGet, str(dig(fetched, "download", "url")), nil); code != 200 || !bytes.Equal(got, data) {
		t.Fatalf("download: %d %q", code, got)
	}
	page := agent.must("storage.find", map[string]any{"project_id": projectID, "limit": 1, "compact": true})
	if page["total"] != 2.0 || page["next_offset"] != 1.0 || len(page["objects"].([]any)) != 1 {
		t.Fatalf("paging: %v", page)
	}

	// Pin A; B (unpinned) expires at the next sweep after retention.
	if p := agent.must("storage.object", map[string]any{"project_id": projectID, "object_id": objA, "action": "pin"}); dig(p, "object", "pinned") != true {
		t.Fatalf("pin: %v", p)
	}
	time.Sleep(2500 * time.Millisecond)
	status := func(id string) string {
		r := agent.must("storage.find", map[string]any{"project_id": projectID, "object_id": id, "include_expired": true})
		return str(dig(r["objects"].([]any)[0], "status"))
	}
	triggerSweep(t, s, func() bool { return status(objB) == "expired" })
	if status(objA) != "available" {
		t.Fatal("the pinned object expired")
	}
	if l := agent.must("storage.find", map[string]any{"project_id": projectID}); l["total"] != 1.0 {
		t.Fatalf("expired objects listed without include_expired: %v", l)
	}
	agent.refused("expired", "storage.fetch", map[string]any{"project_id": projectID, "path": "x", "object_id": objB})
	agent.refused("expired", "storage.object", map[string]any{"project_id": projectID, "object_id": objB, "action": "renew"})
	if _, err := os.Stat(blobB); !os.IsNotExist(err) {
		t.Fatalf("expired bytes not reclaimed: %v", err)
	}
	// Unpinned, A expires too.
	agent.must("storage.object", map[string]any{"project_id": projectID, "object_id": objA, "action": "unpin"})
	time.Sleep(2500 * time.Millisecond)
	triggerSweep(t, s, func() bool { return status(objA) == "expired" })
	recordSweepHistory(t, s, "sweep_expired_unpinned")

	// A result file the experiment produced into storage joins its
	// exhibit once pinned (the contract's "pinned result files").
	expID := str(agent.must("experiment.create", map[string]any{"project_id": projectID, "name": "exhibit-run"})["experiment_id"])
	result := []byte(`{"accuracy": 0.75, "loss": {"final": 0.5}}`)
	subR := agent.must("storage.submit", map[string]any{"project_id": projectID, "path": "results/metrics.json", "kind": "other",
		"sha256": digest(result), "size_bytes": len(result), "producing_experiment_id": expID})
	objR := str(subR["object_id"])
	if code, raw := uploadObject(t, subR, result); code != 200 {
		t.Fatalf("upload result: %d %s", code, raw)
	}
	exhibit := func() []any {
		files, _ := agent.must("experiment.exhibit", map[string]any{"project_id": projectID, "experiment_id": expID})["files"].([]any)
		return files
	}
	if files := exhibit(); len(files) != 0 {
		t.Fatalf("an unpinned object is in the exhibit: %v", files)
	}
	agent.must("storage.object", map[string]any{"project_id": projectID, "object_id": objR, "action": "pin"})
	files := exhibit()
	if len(files) != 1 || dig(files[0], "object_id") != objR || dig(files[0], "metrics", "accuracy") != 0.75 ||
		dig(files[0], "metrics", "loss.final") != 0.5 || dig(files[0], "sha256") != digest(result) {
		t.Fatalf("exhibit of the pinned result file: %v", files)
	}

	// Delete through the tool: the object is gone from find and fetch, its
	// bytes are reclaimed, and a second delete changes nothing.
	notes := []byte("scratch notes")
	subC := agent.must("storage.submit", map[string]any{"project_id": projectID, "path": "notes.txt", "kind": "other", "sha256": digest(notes), "size_bytes": len(notes)})
	objC := str(subC["object_id"])
	if code, raw := uploadObject(t, subC, notes); code != 200 {
		t.Fatalf("upload C: %d %s", code, raw)
	}
	blobC := blobPath(t, s, db, objC)
	if _, err := os.Stat(blobC); err != nil {
		t.Fatalf("C's bytes: %v", err)
	}
	if del := agent.must("storage.object", map[string]any{"project_id": projectID, "object_id": objC, "action": "delete"}); dig(del, "object", "status") != "deleted" {
		t.Fatalf("delete: %v", del)
	}
	if _, err := os.Stat(blobC); !os.IsNotExist(err) {
		t.Fatalf("deleted bytes not reclaimed: %v", err)
	}
	if l := agent.must("storage.find", map[string]any{"project_id": projectID, "object_id": objC, "include_expired": true}); l["total"] != 0.0 {
		t.Fatalf("a deleted object is listed: %v", l)
	}
	if r := agent.call("storage.fetch", map[string]any{"project_id": projectID, "path": "x", "object_id": objC}); !r.IsError {
		t.Fatalf("fetch of a deleted object: %s", r.Raw)
	}
	if again := agent.must("storage.object", map[string]any{"project_id": projectID, "object_id": objC, "action": "delete"}); dig(again, "object", "status") != "deleted" {
		t.Fatalf("second delete: %v", again)
	}

	// Bad inputs: clear errors, no rows written.
	before := countRows(t, db, "research_storage_objects")
	bad := []struct {
		code, tool string
		args       map[string]any
	}{
		{"invalid_input", "storage.submit", map[string]any{"project_id": projectID, "path": "x", "kind": "video", "sha256": digest(data), "size_bytes": 1}},
		{"invalid_input", "storage.submit", map[string]any{"project_id": projectID, "path": "x", "kind": "other", "sha256": "ABC", "size_bytes": 1}},
		{"invalid_input", "storage.submit", map[string]any{"project_id": projectID, "path": "it's", "kind": "other", "sha256": digest(data), "size_bytes": 1}},
		{"invalid_input", "storage.submit", map[string]any{"project_id": projectID, "path": "x", "kind": "other", "sha256": digest(data), "size_bytes": 1 << 40}},
		{"invalid_input", "storage.submit", map[string]any{"project_id": projectID, "path": "x", "name": "bad name!", "kind": "other", "sha256": digest(data), "size_bytes": 1}},
		{"not_found", "storage.submit", map[string]any{"project_id": projectID, "path": "x", "kind": "other", "sha256": digest(data), "size_bytes": 1, "producing_experiment_id": "exp_none"}},
		{"invalid_input", "storage.fetch", map[string]any{"project_id": projectID, "path": "x", "object_id": objA, "name": "train-set"}},
		{"not_found", "storage.object", map[string]any{"project_id": projectID, "object_id": "obj_none", "action": "pin"}},
		{"invalid_input", "storage.object", map[string]any{"project_id": projectID, "object_id": objA, "action": "burn"}},
		{"invalid_input", "storage.find", map[string]any{"project_id": projectID, "status": "expired"}},
	}
	for _, b := range bad {
		r := agent.refused(b.code, b.tool, b.args)
		if str(dig(r.Body, "error", "message")) == "" {
			t.Errorf("%s: no message: %s", b.tool, r.Raw)
		}
	}
	if after := countRows(t, db, "research_storage_objects"); after != before {
		t.Fatalf("bad inputs wrote rows: %d → %d", before, after)
	}
}

// blobPath is the file holding an available object's bytes: the key its
// completion bound (one of its own, never an upload's).
func blobPath(t *testing.T, s *Stack, db *gorm.DB, objectID string) string {
	t.Helper()
	var key string
	if err := db.Table("research_storage_objects").Select("blob_key").Where("id = ?", objectID).Scan(&key).Error; err != nil || key == "" {
		t.Fatalf("blob key of %s: %q %v", objectID, key, err)
	}
	return filepath.Join(s.DataDir, "blobs", filepath.FromSlash(key))
}

// recordSweepHistory writes the newest completed storage sweep's history
// for the replay test when GATEHOUSE_RECORD_HISTORIES=1 (the schedule
// names each run, so it is found by type).
func recordSweepHistory(t *testing.T, s *Stack, name string) {
	t.Helper()
	if os.Getenv("GATEHOUSE_RECORD_HISTORIES") != "1" {
		return
	}
	q := "WorkflowType = '" + researchwf.StorageSweepWorkflowName + "' AND ExecutionStatus = 'Completed'"
	var id string
	waitFor(t, 20*time.Second, func() bool {
		page, err := s.Client(t).ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: q})
		if err != nil || len(page.Executions) == 0 {
			return false
		}
		id = page.Executions[0].GetExecution().GetWorkflowId()
		return true
	})
	writeHistory(t, s, id, "research/testdata/sweep-histories", name)
}
