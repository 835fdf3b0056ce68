package blobstore

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
)

// hostRecorder answers every request 200 and keeps its host and path.
type hostRecorder struct{ host, path string }

func (h *hostRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.host, h.path = r.URL.Host, r.URL.Path
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

func TestS3_AddressingStyle(t *testing.T) {
	cases := map[string]struct {
		pathStyle          string
		wantHost, wantPath string
	}{
		"path style by default": {"", "s3.example.com", "/gh-test/k/a"},
		"virtual-hosted":        {"false", "gh-test.s3.example.com", "/k/a"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"GATEHOUSE_BLOB_S3_PATH_STYLE": tc.pathStyle}
			cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			if err != nil {
				t.Fatal(err)
			}
			rt := &hostRecorder{}
			st, err := NewS3(S3Options{Endpoint: "https://s3.example.com", Bucket: "gh-test", AccessKeyID: "AKID", SecretAccessKey: "s",
				VirtualHostedStyle: cfg.BlobS3.VirtualHostedStyle, HTTPClient: &http.Client{Transport: rt}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Put(context.Background(), "k/a", strings.NewReader("x"), 0); err != nil {
				t.Fatal(err)
			}
			if rt.host != tc.wantHost || rt.path != tc.wantPath {
				t.Fatalf("request to %s%s, want %s%s", rt.host, rt.path, tc.wantHost, tc.wantPath)
			}
		})
	}
}
