package e2e

import (
	"os"
	"path/filepath"
	"runtime/trace"
	"time"
)

// benchTraceEnv, when set (with benchProfileDirEnv), makes every child
// role also write a Go execution trace of each profiled phase to
// <dir>/<role>-<pid>.<phase>.trace, beside its CPU profile: where a
// phase's slow requests waited (collector, scheduler, syscalls, locks)
// can then be read with go tool trace, e.g. -pprof=sched.
const benchTraceEnv = "GATEHOUSE_BENCH_TRACE"

// phaseTrace is the execution trace of one profiled phase in a child
// role, when benchTraceEnv asks for one.
type phaseTrace struct{ f *os.File }

// begin starts tracing into path (nothing when tracing is not asked for
// or cannot start).
func (t *phaseTrace) begin(path string) {
	if os.Getenv(benchTraceEnv) == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if err := trace.Start(f); err != nil {
		_ = f.Close()
		return
	}
	t.f = f
}

// end stops the trace begin started, if any.
func (t *phaseTrace) end() {
	if t.f == nil {
		return
	}
	trace.Stop()
	_ = t.f.Close()
	t.f = nil
}

// childLog is a file in benchProfileDirEnv's directory that a child
// role's output is copied to, named for the role and the time it
// started, or nil when no profile is asked for: with GODEBUG=gctrace=1 it
// shows when each child collected, to set beside a phase's slow requests.
func childLog(role string) *os.File {
	dir := os.Getenv(benchProfileDirEnv)
	if dir == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(dir, role+"-"+time.Now().UTC().Format("150405.000")+".log"))
	if err != nil {
		return nil
	}
	return f
}
