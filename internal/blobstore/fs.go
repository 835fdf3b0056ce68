// Package blobstore keeps bytes (artifacts, evidence exports, sandbox
// outputs) by key. FS is the filesystem store used in dev; every write is
// atomic (temp file + rename) and reports the SHA-256 and size of what landed.
package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Info describes a stored object.
type Info struct {
	Key    string `json:"key"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// ErrNotFound is returned for a key with no object.
var ErrNotFound = errors.New("blob not found")

// ErrBadKey is returned for a key that is empty, absolute or escapes the store.
var ErrBadKey = errors.New("bad blob key")

// FS stores objects as files under Root.
type FS struct {
	Root string
}

// NewFS returns a store rooted at dir, creating it.
func NewFS(dir string) (*FS, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &FS{Root: abs}, nil
}

// path maps a key such as "projects/p1/artifacts/a.md" to a file inside Root.
func (s *FS) path(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") || strings.ContainsRune(key, 0) {
		return "", fmt.Errorf("%w: %q", ErrBadKey, key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return "", fmt.Errorf("%w: %q", ErrBadKey, key)
		}
	}
	return filepath.Join(s.Root, filepath.FromSlash(key)), nil
}

// Put writes r under key, replacing any object there, and returns what landed.
// maxBytes > 0 refuses a larger body (nothing is kept).
func (s *FS) Put(ctx context.Context, key string, r io.Reader, maxBytes int64) (Info, error) {
	p, err := s.path(key)
	if err != nil {
		return Info{}, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return Info{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".upload-*")
	if err != nil {
		return Info{}, err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // best effort; a no-op after a successful rename
	h := sha256.New()
	src := r
	if maxBytes > 0 {
		src = io.LimitReader(r, maxBytes+1)
	}
	n, err := io.Copy(io.MultiWriter(tmp, h), readerWithContext{ctx, src})
	if err == nil && maxBytes > 0 && n > maxBytes {
		err = fmt.Errorf("blob larger than %d bytes", maxBytes)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Info{}, err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return Info{}, err
	}
	return Info{Key: key, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// Open returns a reader over the object at key.
func (s *FS) Open(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return f, err
}

// Stat hashes the object at key.
func (s *FS) Stat(ctx context.Context, key string) (Info, error) {
	rc, err := s.Open(ctx, key)
	if err != nil {
		return Info{}, err
	}
	defer func() { _ = rc.Close() }() // read only: a close error loses nothing
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return Info{}, err
	}
	return Info{Key: key, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// Delete removes the object at key; deleting a missing key is not an error.
func (s *FS) Delete(_ context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// readerWithContext stops a copy when ctx is cancelled.
type readerWithContext struct {
	ctx context.Context
	r   io.Reader
}

func (r readerWithContext) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}
