package flywheel

import (
	"context"
	"log/slog"
	"sync"
	"time"

	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// heartbeatSignaller delivers heartbeat signals to rollout workflows off the
// request path. The row update already decided the heartbeat (fencing lives
// in the database), so the agent is answered at database speed and the
// workflow learns the new expiry a moment later. Pending signals coalesce
// per rollout, newest epoch and expiry winning, so a Temporal backlog is
// bounded by the number of leased rollouts rather than by the heartbeat
// rate. A signal that is late or lost is harmless: when the workflow's lease
// timer fires, its ExpireLease activity re-reads the row and re-arms.
type heartbeatSignaller struct {
	temporal Temporal
	log      *slog.Logger

	mu      sync.Mutex
	pending map[string]wf.LeaseUpdate
	ready   chan string
}

// signalWorkers bounds concurrent signal RPCs from one API process.
const signalWorkers = 16

func newHeartbeatSignaller(t Temporal, log *slog.Logger) *heartbeatSignaller {
	s := &heartbeatSignaller{temporal: t, log: log, pending: map[string]wf.LeaseUpdate{}, ready: make(chan string, 1<<16)}
	for range signalWorkers {
		go s.run()
	}
	return s
}

// enqueue records the newest lease state of a rollout for delivery.
func (s *heartbeatSignaller) enqueue(rolloutID string, u wf.LeaseUpdate) {
	s.mu.Lock()
	prev, queued := s.pending[rolloutID]
	if queued && (prev.Epoch > u.Epoch || (prev.Epoch == u.Epoch && prev.ExpiresAt.After(u.ExpiresAt))) {
		s.mu.Unlock()
		return
	}
	s.pending[rolloutID] = u
	s.mu.Unlock()
	if queued {
		return // already waiting in ready; delivery will take the newer value
	}
	select {
	case s.ready <- rolloutID:
	default:
		// The queue holds one entry per leased rollout; overflowing it means
		// more than 65,536 rollouts are leased on this API process. Dropping
		// is safe (the expiry timer re-reads the row) and is logged.
		s.mu.Lock()
		delete(s.pending, rolloutID)
		s.mu.Unlock()
		s.log.Warn("heartbeat signal queue full; the workflow will read the lease at expiry", "rollout_id", rolloutID)
	}
}

func (s *heartbeatSignaller) run() {
	for id := range s.ready {
		s.mu.Lock()
		u, ok := s.pending[id]
		delete(s.pending, id)
		s.mu.Unlock()
		if !ok {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := s.temporal.SignalWorkflow(ctx, wf.WorkflowID(id), "", wf.LeaseSignal, u)
		cancel()
		if err != nil {
			s.log.Warn("heartbeat signal not delivered; the workflow re-reads the lease at expiry", "rollout_id", id, "err", err)
		}
	}
}
