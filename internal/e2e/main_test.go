package e2e

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	runChildRole()
	code := m.Run()
	if sharedStack != nil {
		_ = sharedStack.Close()
		_ = os.RemoveAll(sharedStack.DataDir)
	}
	os.Exit(code)
}

// sharedT lets the shared stack outlive the test that started it: its
// cleanups are dropped (TestMain closes the stack) and failures panic so
// Shared can report them to every caller.
type sharedT struct {
	testing.TB
	dir string
}

func (s *sharedT) Cleanup(func())                    {}
func (s *sharedT) TempDir() string                   { return s.dir }
func (s *sharedT) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (s *sharedT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func errFromPanic(r any) error { return fmt.Errorf("%v", r) }
