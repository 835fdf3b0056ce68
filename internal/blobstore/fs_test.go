package blobstore

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFS_PutOpenStatDelete(t *testing.T) {
	t.Parallel()
	s, err := NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info, err := s.Put(ctx, "p/a.txt", strings.NewReader("hello"), 0)
	if err != nil {
		t.Fatal(err)
	}
	const helloSHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	if info.SHA256 != helloSHA || info.Size != 5 {
		t.Fatalf("unexpected info %+v", info)
	}
	rc, err := s.Open(ctx, "p/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	_ = rc.Close()
	if string(b) != "hello" {
		t.Fatalf("read %q", b)
	}
	if st, err := s.Stat(ctx, "p/a.txt"); err != nil || st != info {
		t.Fatalf("stat %+v %v", st, err)
	}
	if err := s.Delete(ctx, "p/a.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, "p/a.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
}

func TestFS_RefusesKeysThatEscape(t *testing.T) {
	t.Parallel()
	s, _ := NewFS(t.TempDir())
	for _, key := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", `a\b`, "a/./b"} {
		if _, err := s.Put(context.Background(), key, strings.NewReader("x"), 0); !errors.Is(err, ErrBadKey) {
			t.Errorf("key %q: want ErrBadKey, got %v", key, err)
		}
	}
}

func TestFS_OversizedPutKeepsNothing(t *testing.T) {
	t.Parallel()
	s, _ := NewFS(t.TempDir())
	if _, err := s.Put(context.Background(), "big", strings.NewReader("0123456789"), 4); err == nil {
		t.Fatal("want a size error")
	}
	if _, err := s.Open(context.Background(), "big"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("nothing should be kept, got %v", err)
	}
}
