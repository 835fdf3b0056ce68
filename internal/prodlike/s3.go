package prodlike

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// s3Store is an S3-compatible object store (gofakes3, an independent S3
// implementation) served on loopback, holding every replica's blobs.
type s3Store struct {
	// Endpoint is the API base URL; Bucket exists from the start.
	Endpoint, Bucket string
	// AccessKeyID and SecretAccessKey are what Gatehouse signs with.
	AccessKeyID, SecretAccessKey string
	server                       *http.Server
}

func startS3(bucket string) (*s3Store, error) {
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		return nil, fmt.Errorf("prodlike: create bucket: %w", err)
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", loopback(ports[0]))
	if err != nil {
		return nil, err
	}
	fake := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	srv := &http.Server{Handler: fake.Server(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the stack's health checks notice a dead store
		}
	}()
	return &s3Store{Endpoint: "http://" + l.Addr().String(), Bucket: bucket,
		AccessKeyID: "prodlike", SecretAccessKey: "prodlike-secret", server: srv}, nil
}

// env is the blob-store configuration every api and worker replica gets.
func (s *s3Store) env() []string {
	return []string{
		"GATEHOUSE_BLOB_S3_ENDPOINT=" + s.Endpoint,
		"GATEHOUSE_BLOB_S3_BUCKET=" + s.Bucket,
		"GATEHOUSE_BLOB_S3_REGION=us-east-1",
		"GATEHOUSE_BLOB_S3_ACCESS_KEY_ID=" + s.AccessKeyID,
		"GATEHOUSE_BLOB_S3_SECRET_ACCESS_KEY=" + s.SecretAccessKey,
	}
}

func (s *s3Store) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.server.Shutdown(ctx)
}
