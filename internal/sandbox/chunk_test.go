package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestLocal_ReadChunkCopiesAFileInPiecesAndStaysInside(t *testing.T) {
	t.Parallel()
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	work := l.Workdir("sbx")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("0123456789"), 1000)
	if err := os.WriteFile(filepath.Join(work, "data.bin"), want, 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(l.Root, "secret")
	_ = os.WriteFile(secret, []byte("x"), 0o600)
	_ = os.Symlink(secret, filepath.Join(work, "link"))

	var got []byte
	for off := int64(0); ; {
		b, size, err := l.ReadChunk("sbx", "data.bin", off, 4096)
		if err != nil || size != int64(len(want)) {
			t.Fatalf("chunk at %d: size %d err %v", off, size, err)
		}
		if len(b) == 0 {
			break
		}
		got, off = append(got, b...), off+int64(len(b))
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("copied %d bytes, want %d equal bytes", len(got), len(want))
	}
	for _, p := range []string{"../secret", "link", "/etc/passwd"} {
		if _, _, err := l.ReadChunk("sbx", p, 0, 10); !errors.Is(err, ErrPathOutside) {
			t.Errorf("ReadChunk(%q) = %v, want ErrPathOutside", p, err)
		}
	}
	if _, _, err := l.ReadChunk("sbx", "missing", 0, 10); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
	if _, _, err := l.ReadChunk("sbx", "data.bin", -1, 10); err == nil {
		t.Error("a negative offset must be refused")
	}
	if _, err := l.ReadFile("sbx", "data.bin", 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile over its limit: %v, want ErrTooLarge", err)
	}
}

// A FIFO a sandbox command made is refused at once, not waited on: a
// reader blocked on it would hang the worker's activity or the agent.
func TestLocal_ReadOfAFIFOIsRefusedWithoutBlocking(t *testing.T) {
	t.Parallel()
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	work := l.Workdir("sbx")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(work, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { _, _, err := l.ReadChunk("sbx", "pipe", 0, 10); done <- err }()
	go func() { _, err := l.ReadFile("sbx", "pipe", 10); done <- err }()
	for i := 0; i < 2; i++ {
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("read of a FIFO: %v, want ErrNotFound", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a read of a FIFO blocked")
		}
	}
}
