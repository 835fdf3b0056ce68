package e2e

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// phaseGC records what the Go runtime's allocator and collector did in a
// child process during one profiled phase: bytes and objects allocated,
// collections, and the time the world stood stopped for them. A phase's
// record is written to the name begin was given when end is called.
type phaseGC struct {
	name  string
	at    time.Time
	start runtime.MemStats
}

func (g *phaseGC) begin(name string) {
	g.name, g.at = name, time.Now()
	exactAllocs()
	writeAllocs(name + ".allocs-start")
	runtime.ReadMemStats(&g.start)
}

// benchExactAllocsEnv, when set, makes a child collect at the start and
// the end of each profiled phase, so the phase's allocation profile holds
// exactly its own allocations rather than those up to the collection
// before each end: it moves the collector's cycles, so a run with it set
// measures allocations, not latency.
const benchExactAllocsEnv = "GATEHOUSE_BENCH_EXACT_ALLOCS"

// exactAllocs collects when benchExactAllocsEnv asks for it.
func exactAllocs() {
	if os.Getenv(benchExactAllocsEnv) != "" {
		runtime.GC()
	}
}

// writeAllocs writes the allocation profile so far to path; the profile
// of a phase is its end's less its start's (go tool pprof -base), each as
// of the process's last collection before it was written.
func writeAllocs(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	_ = pprof.Lookup("allocs").WriteTo(f, 0)
	_ = f.Close()
}

// end writes the phase's figures (nothing when no phase began).
func (g *phaseGC) end() {
	if g.name == "" {
		return
	}
	exactAllocs()
	var now runtime.MemStats
	runtime.ReadMemStats(&now)
	s := g.start
	text := fmt.Sprintf("seconds %.3f\nalloc_bytes %d\nmallocs %d\ngc_cycles %d\npause_total_us %d\nheap_alloc_end_bytes %d\n",
		time.Since(g.at).Seconds(), now.TotalAlloc-s.TotalAlloc, now.Mallocs-s.Mallocs, now.NumGC-s.NumGC,
		(now.PauseTotalNs-s.PauseTotalNs)/1000, now.HeapAlloc)
	_ = os.WriteFile(g.name, []byte(text), 0o600)
	writeAllocs(g.name + ".allocs-end")
	g.name = ""
}
