package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func startS3(t *testing.T, secret string) (*s3Server, *S3) {
	t.Helper()
	srv := newS3Server("gh-test", "AKIDTEST", "s3cr3t")
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	st, err := NewS3(S3Options{Endpoint: ts.URL, Bucket: "gh-test", AccessKeyID: "AKIDTEST", SecretAccessKey: secret})
	if err != nil {
		t.Fatal(err)
	}
	return srv, st
}

func TestS3_PutOpenStatDeleteRoundTrip(t *testing.T) {
	srv, st := startS3(t, "s3cr3t")
	ctx := context.Background()
	body := []byte("weights v1\n")
	sum := sha256.Sum256(body)
	info, err := st.Put(ctx, "research/p1/storage/o1", bytes.NewReader(body), 0)
	if err != nil {
		t.Fatal(err)
	}
	if info.SHA256 != hex.EncodeToString(sum[:]) || info.Size != int64(len(body)) {
		t.Fatalf("put info %+v", info)
	}
	if got, ok := srv.object("research/p1/storage/o1"); !ok || !bytes.Equal(got, body) {
		t.Fatalf("server holds %q", got)
	}
	rc, err := st.Open(ctx, "research/p1/storage/o1")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	_ = rc.Close() // read only: a close error loses nothing
	if !bytes.Equal(got, body) {
		t.Fatalf("open read %q", got)
	}
	if si, err := st.Stat(ctx, "research/p1/storage/o1"); err != nil || si != info {
		t.Fatalf("stat %+v %v", si, err)
	}
	if err := st.Delete(ctx, "research/p1/storage/o1"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Open(ctx, "research/p1/storage/o1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("open after delete: %v", err)
	}
	if err := st.Delete(ctx, "research/p1/storage/o1"); err != nil {
		t.Fatalf("deleting a missing key: %v", err)
	}
}

func TestS3_OversizeAndBadKeysKeepNothing(t *testing.T) {
	srv, st := startS3(t, "s3cr3t")
	ctx := context.Background()
	if _, err := st.Put(ctx, "k/big", strings.NewReader("0123456789"), 4); err == nil {
		t.Fatal("oversize body accepted")
	}
	if _, ok := srv.object("k/big"); ok {
		t.Fatal("oversize body was stored")
	}
	for _, k := range []string{"", "/abs", "a/../b", "a//b"} {
		if _, err := st.Put(ctx, k, strings.NewReader("x"), 0); !errors.Is(err, ErrBadKey) {
			t.Errorf("key %q: %v", k, err)
		}
	}
}

func TestS3_WrongSecretIsRefusedByTheServer(t *testing.T) {
	srv, st := startS3(t, "not-the-secret")
	if _, err := st.Put(context.Background(), "k/x", strings.NewReader("x"), 0); err == nil || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
		t.Fatalf("want SignatureDoesNotMatch, got %v", err)
	}
	if _, ok := srv.object("k/x"); ok {
		t.Fatal("unsigned bytes were stored")
	}
}

func do(t *testing.T, method, url string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }() // test cleanup: a close error fails nothing
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestS3_PresignedURLsWorkWithPlainHTTPAndExpire(t *testing.T) {
	srv, st := startS3(t, "s3cr3t")
	ctx := context.Background()
	put, err := st.PresignPut(ctx, "research/p1/storage/o2", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(put, "X-Amz-Expires=600") || !strings.Contains(put, "X-Amz-Signature=") {
		t.Fatalf("presigned put %s", put)
	}
	if code, b := do(t, http.MethodPut, put, []byte("dataset")); code != 200 {
		t.Fatalf("presigned PUT: %d %s", code, b)
	}
	get, err := st.PresignGet(ctx, "research/p1/storage/o2", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if code, b := do(t, http.MethodGet, get, nil); code != 200 || string(b) != "dataset" {
		t.Fatalf("presigned GET: %d %q", code, b)
	}
	// A URL signed for one key does not open another.
	if code, _ := do(t, http.MethodGet, strings.Replace(get, "/o2?", "/o3?", 1), nil); code != http.StatusForbidden {
		t.Fatalf("tampered URL: %d", code)
	}
	// Past its expiry the URL is refused.
	srv.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if code, b := do(t, http.MethodGet, get, nil); code != http.StatusForbidden || !strings.Contains(string(b), "expired") {
		t.Fatalf("expired URL: %d %s", code, b)
	}
	if code, _ := do(t, http.MethodPut, put, []byte("late")); code != 200 {
		t.Fatalf("unexpired PUT refused: %d", code)
	}
}
