package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// benchPerfEnv, when set (with benchProfileDirEnv), makes every profiled
// benchmark phase also run a system-wide `perf record` (software clock,
// call graphs) into <dir>/perf.<benchmark>.<phase>.data, so the time
// PostgreSQL's backends spend per request can be read next to the Go
// processes' own profiles:
//
//	perf report -i <file> --comm postgres --no-children --sort sym
const benchPerfEnv = "GATEHOUSE_BENCH_PERF"

// perfPhase starts perf for phase when benchPerfEnv is set and returns the
// function that stops it (SIGINT, so perf writes its file) and waits.
func perfPhase(b *testing.B, phase string) func() {
	dir := os.Getenv(benchProfileDirEnv)
	if dir == "" || os.Getenv(benchPerfEnv) == "" {
		return func() {}
	}
	name := strings.NewReplacer("/", "_", "=", "").Replace(b.Name())
	out := filepath.Join(dir, "perf."+name+"."+phase+".data")
	cmd := exec.Command("perf", "record", "-a", "-g", "-e", "cpu-clock", "-F", "499", "-o", out)
	if err := cmd.Start(); err != nil {
		b.Logf("perf not started: %v", err)
		return func() {}
	}
	return func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			b.Logf("perf for %s: %v", phase, err)
		}
	}
}
