package sandbox

import (
	"context"
	"time"
)

// Running counts the runs still running.
func Running(runs []Run) int {
	n := 0
	for _, r := range runs {
		if r.Status == RunRunning {
			n++
		}
	}
	return n
}

// WaitRuns reads runs with read until none is running or wait has passed
// (a long poll), reading again every tick, and answers the last read.
func WaitRuns(ctx context.Context, read func() ([]Run, error), wait, tick time.Duration) ([]Run, error) {
	deadline := time.Now().Add(wait)
	for {
		runs, err := read()
		if err != nil || Running(runs) == 0 || !time.Now().Before(deadline) {
			return runs, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(tick, time.Until(deadline))):
		}
	}
}

// TrimRuns bounds what runs carry: each output keeps its last perRun
// bytes (0: all), and, newest first, outputs are kept while their sum stays
// within total (0: no bound); older ones are emptied. Cut outputs are
// marked Truncated. runs is not modified.
func TrimRuns(runs []Run, perRun, total int) []Run {
	out := make([]Run, len(runs))
	copy(out, runs)
	used := 0
	for i := len(out) - 1; i >= 0; i-- {
		r := &out[i]
		if perRun > 0 && len(r.Output) > perRun {
			r.Output, r.Truncated = r.Output[len(r.Output)-perRun:], true
		}
		if total > 0 && used+len(r.Output) > total {
			keep := max(total-used, 0)
			r.Output, r.Truncated = r.Output[len(r.Output)-keep:], true
		}
		used += len(r.Output)
	}
	return out
}
