package e2e

import (
	"io"
	"os"
	"sync"
	"testing"
)

// failureLogLimit is how much of a stack's log tail a failed test prints.
const failureLogLimit = 64 << 10

// failureLog keeps the tail of a stack's log and prints it only when the
// test fails, so a flake in CI shows what the stack said without every
// passing test flooding the output.
type failureLog struct {
	mu   sync.Mutex
	tail []byte
}

// Write keeps the last failureLogLimit bytes written.
func (l *failureLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tail = append(l.tail, p...)
	if over := len(l.tail) - failureLogLimit; over > 0 {
		l.tail = append(l.tail[:0], l.tail[over:]...)
	}
	return len(p), nil
}

// stackLogs is where a stack started for t logs: stderr with
// GATEHOUSE_E2E_LOGS set, else a tail printed only if t fails.
func stackLogs(t testing.TB) io.Writer {
	if os.Getenv("GATEHOUSE_E2E_LOGS") != "" {
		return os.Stderr
	}
	l := &failureLog{}
	t.Cleanup(func() {
		if t.Failed() {
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Logf("stack log tail:\n%s", l.tail)
		}
	})
	return l
}
