package research

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// pattern is byte i of the fake output file.
func pattern(i int64) byte { return byte(i*7 + i>>11) }

// fakePodAgent answers reads of one file of size bytes, chunk by chunk,
// as a Pod's sandbox agent does.
func fakePodAgent(t *testing.T, token string, size int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"type":"unauthorized","message":"token"}`, http.StatusUnauthorized)
			return
		}
		var in wf.SandboxInspectRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Op != wf.InspectRead || in.Path != "model.bin" {
			http.Error(w, `{"type":"bad_request","message":"only reads of model.bin"}`, http.StatusBadRequest)
			return
		}
		n := min(int64(in.Length), max(size-in.Offset, 0))
		data := make([]byte, n)
		for i := range data {
			data[i] = pattern(in.Offset + int64(i))
		}
		_ = json.NewEncoder(w).Encode(wf.SandboxInspectResult{Data: data, Size: size})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// peakHeap samples the live heap until stop is called, answering the
// highest value seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// TestSandboxPullOutputs_StreamsALargeFileInBoundedMemory: pulling a
// 96 MiB output through a Pod's agent used to hold the whole file in the
// api (twice, while appending), against a 512 MiB pod limit; now the heap
// grows by a few chunks at most, and the stored object has the file's
// digest.
func TestSandboxPullOutputs_StreamsALargeFileInBoundedMemory(t *testing.T) {
	s, tc := kubeService(t)
	blobs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Blobs = blobs
	const size = 96 << 20
	s.Config.MaxBodyBytes = 256 << 20
	const token = "0011223344556677889900112233445566778899001122334455667788990011"
	srv := fakePodAgent(t, token, size)
	storeSandbox(t, s, "sbx_kbig01", "kubernetes", models.SandboxRunning, "10.0.0.9")
	if err := s.DB.Model(&models.Sandbox{}).Where("uid = ?", "sbx_kbig01").Update("inspect_token", token).Error; err != nil {
		t.Fatal(err)
	}
	tc.On("QueryWorkflow", mock.Anything, wf.SandboxWorkflowID("sbx_kbig01"), "", wf.SandboxStateQuery).
		Return(queriedState{wf.SandboxState{UID: "sbx_kbig01", Status: wf.SandboxRunning,
			Endpoint: wf.SandboxEndpoint{Host: "10.0.0.9", Port: 2222, InspectURL: srv.URL}}}, nil)

	defer debug.SetGCPercent(debug.SetGCPercent(50))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := peakHeap()
	pulled := invokeOK(t, s, "sandbox.pull_outputs", map[string]any{"project_id": "prj_k", "sandbox_uid": "sbx_kbig01", "paths": []string{"model.bin"}})
	peak := stop()

	h := sha256.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(buf)) {
		for i := range buf {
			buf[i] = pattern(off + int64(i))
		}
		h.Write(buf)
	}
	o := pulled["outputs"].([]any)[0].(map[string]any)
	if o["sha256"] != hex.EncodeToString(h.Sum(nil)) || o["size_bytes"] != float64(size) || o["status"] != models.StorageAvailable {
		t.Fatalf("pulled %v", o)
	}
	grew := int64(peak) - int64(before.HeapAlloc)
	t.Logf("heap grew by at most %d MiB pulling a %d MiB file", grew>>20, size>>20)
	if grew > 48<<20 {
		t.Fatalf("the heap grew by %d MiB pulling a %d MiB file: the file is held in memory", grew>>20, size>>20)
	}
}
