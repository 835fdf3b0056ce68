package blobstore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
)

// isolateAWSEnv points the default credential chain at env credentials
// only: no shared files, profile or instance metadata of the machine.
func isolateAWSEnv(t *testing.T, access, secret string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "")
	t.Setenv("AWS_ROLE_ARN", "")
}

// signedBy serves srv and records the access key of every signed request.
type signedBy struct {
	srv  *s3Server
	mu   sync.Mutex
	keys []string
}

func (s *signedBy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, cred, _ := strings.Cut(r.Header.Get("Authorization"), "Credential=")
	access, _, _ := strings.Cut(cred, "/")
	s.mu.Lock()
	s.keys = append(s.keys, access)
	s.mu.Unlock()
	s.srv.ServeHTTP(w, r)
}

func (s *signedBy) accessKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// startSignedS3 serves a bucket that accepts only access/secret.
func startSignedS3(t *testing.T, access, secret string) (*signedBy, string) {
	t.Helper()
	rec := &signedBy{srv: newS3Server("gh-test", access, secret)}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return rec, ts.URL
}

func TestS3_NoStaticKeysSignsWithTheDefaultCredentialChain(t *testing.T) {
	isolateAWSEnv(t, "AKIDFROMENV", "env-secret")
	rec, endpoint := startSignedS3(t, "AKIDFROMENV", "env-secret")
	// Through the real configuration path: only bucket and endpoint set.
	env := map[string]string{"GATEHOUSE_BLOB_S3_BUCKET": "gh-test", "GATEHOUSE_BLOB_S3_ENDPOINT": endpoint}
	cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("config refuses an S3 store without static keys: %v", err)
	}
	st, err := FromConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := st.Put(ctx, "research/p1/a", strings.NewReader("bytes"), 0); err != nil {
		t.Fatalf("put with env credentials: %v", err)
	}
	rc, err := st.Open(ctx, "research/p1/a")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	_ = rc.Close() // read only: a close error loses nothing
	if string(got) != "bytes" {
		t.Fatalf("read back %q", got)
	}
	keys := rec.accessKeys()
	if len(keys) == 0 {
		t.Fatal("no request reached the server")
	}
	for _, k := range keys {
		if k != "AKIDFROMENV" {
			t.Fatalf("request signed with access key %q, want the environment's AKIDFROMENV", k)
		}
	}
}

// Static keys keep precedence over whatever the environment holds.
func TestS3_StaticKeysWinOverTheEnvironment(t *testing.T) {
	isolateAWSEnv(t, "AKIDFROMENV", "env-secret")
	rec, endpoint := startSignedS3(t, "AKIDSTATIC", "static-secret")
	st, err := NewS3(S3Options{Endpoint: endpoint, Bucket: "gh-test", AccessKeyID: "AKIDSTATIC", SecretAccessKey: "static-secret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(context.Background(), "k/a", strings.NewReader("x"), 0); err != nil {
		t.Fatalf("put with static keys: %v", err)
	}
	if keys := rec.accessKeys(); len(keys) != 1 || keys[0] != "AKIDSTATIC" {
		t.Fatalf("signed with %v, want [AKIDSTATIC]", keys)
	}
}

func TestS3_HalfAKeyPairIsRefused(t *testing.T) {
	for name, opts := range map[string]S3Options{
		"id only":     {Bucket: "b", AccessKeyID: "AKID"},
		"secret only": {Bucket: "b", SecretAccessKey: "s"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewS3(opts); !errors.Is(err, ErrPartialS3Keys) {
				t.Fatalf("NewS3: %v, want ErrPartialS3Keys", err)
			}
		})
	}
}
