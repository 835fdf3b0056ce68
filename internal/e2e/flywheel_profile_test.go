package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// benchProfileDirEnv, when set, makes every child role of the benchmarks
// serve CPU-profile start/stop on a loopback port (written to
// <dir>/<role>-<pid>.addr), so a benchmark can profile each process per
// phase: claims, heartbeats, outputs.
const benchProfileDirEnv = "GATEHOUSE_BENCH_PROFILE_DIR"

func init() {
	dir, role := os.Getenv(benchProfileDirEnv), os.Getenv(childRoleEnv)
	if dir == "" || role == "" {
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return
	}
	runtime.MemProfileRate = 16 << 10 // enough samples for one phase's allocations
	var mu sync.Mutex
	var f *os.File
	var gc phaseGC
	var tr phaseTrace
	mux := http.NewServeMux()
	mux.HandleFunc("POST /start/{phase}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if f != nil {
			pprof.StopCPUProfile()
			_ = f.Close()
		}
		tr.end()
		var err error
		name := filepath.Join(dir, fmt.Sprintf("%s-%d.%s", role, os.Getpid(), r.PathValue("phase")))
		gc.begin(name + ".gc")
		tr.begin(name + ".trace")
		f, err = os.Create(name + ".cpu")
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("POST /stop", func(http.ResponseWriter, *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if f != nil {
			pprof.StopCPUProfile()
			_ = f.Close()
			f = nil
		}
		tr.end()
		gc.end()
	})
	go func() { _ = http.Serve(l, mux) }()
	_ = os.WriteFile(filepath.Join(dir, role+"-"+strconv.Itoa(os.Getpid())+".addr"), []byte(l.Addr().String()), 0o600)
}

// profilePhase starts a CPU profile named phase in every child role that
// serves one (benchProfileDirEnv), and perf across the machine when asked
// (benchPerfEnv), and returns the function that stops them.
func profilePhase(b *testing.B, phase string) func() {
	dir := os.Getenv(benchProfileDirEnv)
	if dir == "" {
		return func() {}
	}
	stopPerf := perfPhase(b, phase)
	addrs, _ := filepath.Glob(filepath.Join(dir, "*.addr"))
	var live []string
	for _, a := range addrs {
		raw, err := os.ReadFile(a)
		if err != nil {
			continue
		}
		if r, err := http.Post("http://"+string(raw)+"/start/"+phase, "", nil); err == nil {
			_ = r.Body.Close()
			live = append(live, string(raw))
		}
	}
	b.Logf("profiling %s in %d processes", phase, len(live))
	stopSelf := profileSelf(b, dir, phase)
	return func() {
		stopSelf()
		stopPerf()
		for _, a := range live {
			if r, err := http.Post("http://"+a+"/stop", "", nil); err == nil {
				_ = r.Body.Close()
			}
		}
	}
}

// profileSelf writes a CPU profile of phase in this process (where the
// dev stack runs: its API, worker, SQLite and embedded Temporal) to
// <dir>/self-<benchmark>.<phase>.cpu, and returns the function that stops
// it, and its live heap at the phase's end to the same name with .heap.
// Another profile already running (profileHeartbeats) leaves it off.
func profileSelf(b *testing.B, dir, phase string) func() {
	name := strings.NewReplacer("/", "_", "=", "").Replace(b.Name())
	f, err := os.Create(filepath.Join(dir, "self-"+name+"."+phase+".cpu"))
	if err != nil {
		b.Logf("no in-process profile of %s: %v", phase, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Logf("no in-process profile of %s: %v", phase, err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
		writeHeapProfile(b, filepath.Join(dir, "self-"+name+"."+phase+".heap"))
	}
}

// writeHeapProfile writes this process's live heap, as of the last
// garbage collection, to path.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Logf("no heap profile: %v", err)
		return
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Logf("no heap profile: %v", err)
	}
	_ = f.Close()
}
