package flylab

import "sync"

// runProgress forwards a run's progress to the caller, never backwards,
// and ends it with "total of total" when the run has answered: the relay
// polls heartbeats, so a run shorter than a poll would otherwise report
// nothing at all.
type runProgress struct {
	report ProgressFunc
	mu     sync.Mutex
	last   float64
}

// newRunProgress wraps report; nil stays nil (the caller asked for none).
func newRunProgress(report ProgressFunc) *runProgress {
	if report == nil {
		return nil
	}
	return &runProgress{report: report, last: -1}
}

// relay reports done of total if it is further than anything reported.
func (r *runProgress) relay(done, total float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if done > r.last {
		r.last = done
		r.report(done, total)
	}
}

// finish reports the whole batch done, from the stored result's protocol
// (conditions × replicates), unless the relay already did.
func (r *runProgress) finish(batch map[string]any) {
	protocol, _ := batch["protocol"].(map[string]any)
	conditions, _ := protocol["conditions"].([]any)
	replicates, _ := protocol["replicates"].(float64)
	if total := float64(len(conditions)) * replicates; total > 0 {
		r.relay(total, total)
	}
}

// progressFunc returns the relay as a ProgressFunc (nil for no progress).
func (r *runProgress) progressFunc() ProgressFunc {
	if r == nil {
		return nil
	}
	return r.relay
}
