package devserver

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestStart_AnInternalPortTakenMeanwhileIsPickedAgain: a port picked free
// for an internal service is taken before the server binds it (here by
// the test; in CI by a parallel test or an outgoing connection). Start
// picks fresh ports and the server serves, where the taken port used to
// leave the worker service a nil listener and end the process.
func TestStart_AnInternalPortTakenMeanwhileIsPickedAgain(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = taken.Close() }()
	picks := 0
	internalPorts = func(host string, n int) ([]int, error) {
		picks++
		ports, err := freePorts(host, n)
		if picks == 1 && err == nil {
			ports[n-1] = taken.Addr().(*net.TCPAddr).Port // the worker service's
		}
		return ports, err
	}
	defer func() { internalPorts = freePorts }()

	s, err := Start(Options{DatabasePath: filepath.Join(t.TempDir(), "temporal.db"), FrontendAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("start with a taken internal port: %v", err)
	}
	defer func() { _ = s.Stop() }()
	if picks != 2 {
		t.Fatalf("ports picked %d times, want 2 (the taken one, then fresh)", picks)
	}
	c, err := net.Dial("tcp", s.FrontendAddr())
	if err != nil {
		t.Fatalf("the frontend does not answer: %v", err)
	}
	_ = c.Close()
}

// TestStart_AChosenFrontendPortInUseIsRefusedBeforeAnythingIsWritten: a
// frontend port the caller chose that something already listens on is
// ErrPortInUse, and no database file is made.
func TestStart_AChosenFrontendPortInUseIsRefusedBeforeAnythingIsWritten(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = held.Close() }()
	path := filepath.Join(t.TempDir(), "temporal.db")
	if _, err := Start(Options{DatabasePath: path, FrontendAddr: held.Addr().String()}); !errors.Is(err, ErrPortInUse) {
		t.Fatalf("start on a taken frontend port: %v, want ErrPortInUse", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused start made %s (%v)", path, err)
	}
}
