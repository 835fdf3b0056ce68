package app

import (
	"os"
	"runtime/debug"
)

// DevGCPercent is the collector's target (GOGC) in a gatehouse dev
// process. The process holds the embedded Temporal server's caches and
// the worker's cached workflows: a live heap of 130-160 MB at 5,000 open
// rollouts, whose marking takes nearly a core for 200-400 ms on a
// two-core machine, and requests arriving meanwhile queue behind it.
// Twice the default target collects half as often, so half as many
// bursts meet a collection, for about 150 MB more (BenchmarkFlywheelPaced
// measures it; GATEHOUSE_BENCH_DEV_ENV=GOGC=100 measures Go's default). The
// heap stays bounded: so do the caches (devserver's historyCacheEntries).
// Four times the default met the heartbeat target as well, but with a
// tail no shorter, at over 900 MB.
const DevGCPercent = 200

// TuneDevCollector sets a gatehouse dev process's collector target to
// DevGCPercent, unless GOGC names one, and returns the target in force.
// The process's entry point calls it once; StartDev does not, since tests
// run dev stacks inside their own processes.
func TuneDevCollector() int {
	if os.Getenv("GOGC") != "" {
		percent := debug.SetGCPercent(-1)
		debug.SetGCPercent(percent)
		return percent
	}
	debug.SetGCPercent(DevGCPercent)
	return DevGCPercent
}
