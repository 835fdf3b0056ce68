package sandbox

import (
	"context"
	"slices"
	"strings"
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

// runOverhead is what one run's fields other than its command and output
// take in an answer, roughly.
const runOverhead = 200

// MaxRunCommand is how much of a command TrimRuns keeps.
const MaxRunCommand = 4 << 10

// TrimRuns bounds what runs carry when they travel to another process:
// outputs and commands become valid UTF-8, each output keeps its last
// perRun bytes (0: all) and each command its first MaxRunCommand bytes;
// then, newest first, runs keep their output while the sum of commands,
// outputs and a per-run overhead stays within total (0: no bound), older
// runs keep only their metadata, and the oldest runs are dropped once even
// that does not fit. Cut outputs are marked Truncated. runs is not
// modified.
func TrimRuns(runs []Run, perRun, total int) []Run {
	out := make([]Run, 0, len(runs))
	used := 0
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		r.Output, r.Command = strings.ToValidUTF8(r.Output, "\uFFFD"), strings.ToValidUTF8(r.Command, "\uFFFD")
		if perRun > 0 && len(r.Output) > perRun {
			r.Output, r.Truncated = strings.ToValidUTF8(r.Output[len(r.Output)-perRun:], ""), true
		}
		if total > 0 && len(r.Command) > MaxRunCommand {
			r.Command = strings.ToValidUTF8(r.Command[:MaxRunCommand], "") + "…"
		}
		if total > 0 {
			meta := runOverhead + len(r.Command)
			if used+meta > total {
				break // older runs do not fit even without output
			}
			if used+meta+len(r.Output) > total {
				keep := max(total-used-meta, 0)
				r.Output, r.Truncated = strings.ToValidUTF8(r.Output[len(r.Output)-keep:], ""), true
			}
			used += meta + len(r.Output)
		}
		out = append(out, r)
	}
	slices.Reverse(out)
	return out
}
