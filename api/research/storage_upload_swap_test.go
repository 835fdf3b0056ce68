package research

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/internal/blobstore"
)

// presigningFS is a filesystem store that hands out "presigned" URLs as
// S3 does: presigned://<key> names a key anyone holding the URL may PUT
// to or GET until it expires (the test plays S3 by writing the key).
type presigningFS struct{ *blobstore.FS }

func (presigningFS) PresignPut(_ context.Context, key string, _ time.Duration) (string, error) {
	return "presigned://" + key, nil
}

func (presigningFS) PresignGet(_ context.Context, key string, _ time.Duration) (string, error) {
	return "presigned://" + key, nil
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// storageService is kubeService with storage on a store of kind blobs.
func storageService(t *testing.T, presign bool) (*Service, *blobstore.FS) {
	s, _ := kubeService(t)
	fs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Blobs = fs
	if presign {
		s.Blobs = presigningFS{fs}
	}
	s.Config.Features.Storage = true
	return s, fs
}

// storageRoutes serves s's token URLs; do sends one request to them.
func storageRoutes(s *Service) func(method, url string, body []byte) (int, []byte) {
	s.Config.PublicURL = "http://gatehouse.test"
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.PUT(StorageUploadPrefix+":token", s.storageUpload)
	e.POST(StorageCompletePrefix+":token", s.storageComplete)
	e.GET(StorageDownloadPrefix+":token", s.storageDownload)
	return func(method, url string, body []byte) (int, []byte) {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(method, strings.TrimPrefix(url, "http://gatehouse.test"), bytes.NewReader(body)))
		return w.Code, w.Body.Bytes()
	}
}

// TestStorageUpload_PresignedPutAfterCompletionSwapsNothing: the attack
// is to upload the declared bytes, let completion check them, then PUT
// other bytes to the same presigned URL (still valid for its TTL). The
// URL named the object's blob key, so the available object's bytes were
// swapped after the check; now it names the attempt's own key, and the
// object holds the copy completion checked.
func TestStorageUpload_PresignedPutAfterCompletionSwapsNothing(t *testing.T) {
	s, fs := storageService(t, true)
	do := storageRoutes(s)
	good, evil := []byte("the declared results\n"), []byte("something else entirely\n")
	sub := invokeOK(t, s, "storage.submit", map[string]any{"project_id": "prj_k", "path": "results.txt", "kind": "other", "sha256": sum(good), "size_bytes": len(good)})
	putURL := sub["upload"].(map[string]any)["url"].(string)
	key, ok := strings.CutPrefix(putURL, "presigned://")
	if !ok {
		t.Fatalf("upload url %q", putURL)
	}
	ctx := context.Background()
	if _, err := fs.Put(ctx, key, bytes.NewReader(good), 0); err != nil { // the agent's presigned PUT
		t.Fatal(err)
	}
	if code, body := do(http.MethodPost, sub["complete"].(map[string]any)["url"].(string), nil); code != http.StatusOK {
		t.Fatalf("completion: %d %s", code, body)
	}
	if _, err := fs.Put(ctx, key, bytes.NewReader(evil), 0); err != nil { // the same URL, after completion
		t.Fatal(err)
	}
	got := invokeOK(t, s, "storage.fetch", map[string]any{"project_id": "prj_k", "path": "out.txt", "object_id": sub["object_id"]})
	getKey, _ := strings.CutPrefix(got["download"].(map[string]any)["url"].(string), "presigned://")
	rc, err := fs.Open(ctx, getKey)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	if b, _ := io.ReadAll(rc); !bytes.Equal(b, good) {
		t.Fatalf("the available object serves %q, want the checked %q", b, good)
	}
}

// TestStorageUpload_EachAttemptHasItsOwnKeyAndTokenURLsStopAtCompletion:
// two upload attempts of one object get different keys; once completion
// made the object available, a PUT with either token is refused and the
// object keeps the bytes completion checked.
func TestStorageUpload_EachAttemptHasItsOwnKeyAndTokenURLsStopAtCompletion(t *testing.T) {
	s, _ := storageService(t, false)
	do := storageRoutes(s)
	good, evil := []byte("checked bytes\n"), []byte("swapped bytes\n")
	first := invokeOK(t, s, "storage.submit", map[string]any{"project_id": "prj_k", "path": "a.txt", "kind": "other", "sha256": sum(good), "size_bytes": len(good)})
	id := first["object_id"]
	attemptKey := func() (k string) {
		s.DB.Table("research_storage_objects").Select("upload_blob_key").Where("id = ?", id).Scan(&k)
		return k
	}
	firstKey := attemptKey()
	second := invokeOK(t, s, "storage.submit", map[string]any{"project_id": "prj_k", "path": "a.txt", "kind": "other", "sha256": sum(good), "size_bytes": len(good)})
	if secondKey := attemptKey(); second["object_id"] != id || firstKey == "" || secondKey == "" || secondKey == firstKey {
		t.Fatalf("attempt keys %q then %q", firstKey, secondKey)
	}
	if code, body := do(http.MethodPut, first["upload"].(map[string]any)["url"].(string), good); code != http.StatusNotFound {
		t.Fatalf("the replaced attempt's token: %d %s", code, body)
	}
	up := second["upload"].(map[string]any)["url"].(string)
	if code, body := do(http.MethodPut, up, good); code != http.StatusOK {
		t.Fatalf("upload: %d %s", code, body)
	}
	if code, body := do(http.MethodPost, second["complete"].(map[string]any)["url"].(string), nil); code != http.StatusOK {
		t.Fatalf("complete: %d %s", code, body)
	}
	if code, _ := do(http.MethodPut, up, evil); code != http.StatusConflict {
		t.Fatalf("a PUT after completion answered %d", code)
	}
	fetched := invokeOK(t, s, "storage.fetch", map[string]any{"project_id": "prj_k", "path": "out.txt", "object_id": id})
	if code, body := do(http.MethodGet, fetched["download"].(map[string]any)["url"].(string), nil); code != http.StatusOK || !bytes.Equal(body, good) {
		t.Fatalf("download: %d %q", code, body)
	}
}
