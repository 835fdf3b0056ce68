package blobstore

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gatehouse/gatehouse/internal/config"
)

// Store keeps bytes by key. Every backend reports the SHA-256 and size of
// what landed, so callers can check uploaded bytes against a declaration.
type Store interface {
	// Put writes r under key; maxBytes > 0 refuses a larger body and keeps nothing.
	Put(ctx context.Context, key string, r io.Reader, maxBytes int64) (Info, error)
	// Open reads the object at key (ErrNotFound when absent).
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Stat hashes the object at key.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the object at key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// Presigner is implemented by stores whose objects a caller can reach
// directly with a signed, expiring URL (S3). Stores without it are reached
// through the API's own token URLs.
type Presigner interface {
	// PresignPut returns a URL that accepts one PUT of the object's bytes until ttl passes.
	PresignPut(ctx context.Context, key string, ttl time.Duration) (string, error)
	// PresignGet returns a URL that serves the object until ttl passes.
	PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error)
}

var (
	_ Store     = (*FS)(nil)
	_ Store     = (*S3)(nil)
	_ Presigner = (*S3)(nil)
)

// FromConfig chooses the blob backend: S3-compatible when
// GATEHOUSE_BLOB_S3_BUCKET is set, else the filesystem under BlobDir. It is
// the one place the choice is made.
func FromConfig(cfg config.Config) (Store, error) {
	if cfg.BlobS3.Bucket != "" {
		s, err := NewS3(S3Options{Endpoint: cfg.BlobS3.Endpoint, Bucket: cfg.BlobS3.Bucket, Region: cfg.BlobS3.Region,
			AccessKeyID: cfg.BlobS3.AccessKeyID, SecretAccessKey: cfg.BlobS3.SecretAccessKey, VirtualHostedStyle: cfg.BlobS3.VirtualHostedStyle})
		if err != nil {
			return nil, fmt.Errorf("s3 blob store: %w", err)
		}
		return s, nil
	}
	return NewFS(cfg.BlobDir)
}
