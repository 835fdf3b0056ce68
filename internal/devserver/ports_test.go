package devserver

import (
	"errors"
	"net"
	"testing"
)

// TestEnsurePortFree_ATakenPortIsErrPortInUse: a port something already
// listens on is refused with ErrPortInUse, which a caller can test for to
// pick fresh ports; a free one passes.
func TestEnsurePortFree_ATakenPortIsErrPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := ensurePortFree("127.0.0.1", port); !errors.Is(err, ErrPortInUse) {
		t.Fatalf("taken port: %v, want ErrPortInUse", err)
	}
	_ = l.Close()
	if err := ensurePortFree("127.0.0.1", port); err != nil {
		t.Fatalf("freed port: %v", err)
	}
}
