package e2e

import "time"

// Settling: a benchmark phase that follows a burst of workflow starts
// (an enqueue of thousands of rollouts) would otherwise be timed while
// Temporal and the workers still run those workflows' first tasks, work
// the plain-lease baseline does not have. settle waits for that tail.
const (
	// settleWindow is how long one CPU sample spans.
	settleWindow = 250 * time.Millisecond
	// settleIdleCores is the CPU rate (in cores) under which the
	// watched processes count as settled: their idle pollers and timers.
	settleIdleCores = 0.10
	// settleMax bounds the wait.
	settleMax = 60 * time.Second
)

// settle waits until the processes of groups together use less than
// settleIdleCores for two windows in a row (or settleMax passed), and
// returns how long that took (report it after the timed phases: a
// b.ResetTimer drops metrics reported before it).
func settle(m *cpuMeter, groups ...string) time.Duration {
	start := time.Now()
	used := func() float64 {
		total := 0.0
		for _, g := range groups {
			total += cpuSeconds(m.groups[g]())
		}
		return total
	}
	quiet, last := 0, used()
	for quiet < 2 && time.Since(start) < settleMax {
		time.Sleep(settleWindow)
		now := used()
		if (now-last)/settleWindow.Seconds() < settleIdleCores {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
	return time.Since(start)
}
