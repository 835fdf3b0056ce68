package flywheel

import (
	"container/heap"
	"context"
	"log/slog"
	"sync"
	"time"

	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// heartbeatSignaller delivers heartbeat signals to rollout workflows off the
// request path. The row update already decided the heartbeat (fencing lives
// in the database), so the agent is answered at database speed and the
// workflow learns the new expiry later. Pending signals coalesce per
// rollout, newest epoch and expiry winning, so a Temporal backlog is bounded
// by the number of leased rollouts rather than by the heartbeat rate.
//
// A heartbeat's signal is only needed before the workflow's lease timer
// fires, at the expiry the workflow was last told. So once a rollout's
// workflow has been told an expiry of the current epoch (by the claim or an
// earlier signal), the next heartbeat's signal waits until shortly before
// that expiry (deliveryLead), and every heartbeat in between folds into it:
// about one signal per lease length instead of one per heartbeat, and none
// competing with a burst of heartbeat requests. A signal that is late or
// lost is harmless: when the workflow's lease timer fires, its ExpireLease
// activity re-reads the row and re-arms. A rollout this process has told
// nothing yet (first heartbeat after a restart, or a claim made elsewhere)
// is signalled at once, unless the heartbeat names its grant (granted).
type heartbeatSignaller struct {
	temporal Temporal
	log      *slog.Logger
	now      func() time.Time

	mu sync.Mutex
	// pending is the newest undelivered update per rollout; queued ones are
	// in ready, the others wait in due.
	pending map[string]*pendingSignal
	// told is what each rollout's workflow was last told, and when.
	told  map[string]toldLease
	due   dueHeap
	wake  chan struct{}
	ready chan string
}

type pendingSignal struct {
	u      wf.LeaseUpdate
	at     time.Time // when it is due (zero: queued in ready)
	queued bool
}

type toldLease struct {
	u  wf.LeaseUpdate
	at time.Time
}

// signalWorkers bounds concurrent signal RPCs from one API process.
const signalWorkers = 16

// Delivery lead: a deferred signal goes out this fraction of the told lease
// before the told expiry, and at least minDeliveryLead before it.
const (
	deliveryLeadFraction = 4 // a quarter of the lease
	minDeliveryLead      = 2 * time.Second
	// toldRetention keeps what a workflow was told this long past its
	// expiry, then forgets it (the workflow re-reads the row by then).
	toldRetention = time.Minute
)

// newHeartbeatSignaller starts a signaller that reads the time from now,
// the clock the handler stamps leases with.
func newHeartbeatSignaller(t Temporal, log *slog.Logger, now func() time.Time) *heartbeatSignaller {
	s := &heartbeatSignaller{temporal: t, log: log, now: now, pending: map[string]*pendingSignal{},
		told: map[string]toldLease{}, wake: make(chan struct{}, 1), ready: make(chan string, 1<<16)}
	for range signalWorkers {
		go s.run()
	}
	go s.schedule()
	return s
}

// delivered records that rollout's workflow was told u (by a claim's signal
// or a heartbeat's).
func (s *heartbeatSignaller) delivered(rolloutID string, u wf.LeaseUpdate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.told[rolloutID]; !ok || newer(u, t.u) {
		s.told[rolloutID] = toldLease{u: u, at: s.now()}
	}
}

// granted records that rollout's workflow is told grant u, granted at at,
// by the grant's notice (the outbox delivers it, from whichever process
// claimed), unless this process knows of a later state. A heartbeat on a
// process that did not claim the rollout then waits for the grant's
// expiry like one on the process that did, instead of signalling at once.
func (s *heartbeatSignaller) granted(rolloutID string, u wf.LeaseUpdate, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.told[rolloutID]; !ok || newer(u, t.u) {
		s.told[rolloutID] = toldLease{u: u, at: at}
	}
}

// forget drops what is pending or known for a rollout whose output was
// accepted: its workflow ends, and a deferred signal would only fail.
func (s *heartbeatSignaller) forget(rolloutID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pending[rolloutID]; ok && !p.queued {
		delete(s.pending, rolloutID) // its heap entry is skipped when popped
	}
	delete(s.told, rolloutID)
}

// newer tells whether a is a later lease state than b.
func newer(a, b wf.LeaseUpdate) bool {
	return a.Epoch > b.Epoch || (a.Epoch == b.Epoch && a.ExpiresAt.After(b.ExpiresAt))
}

// dueAt is when u must be delivered, given what the workflow was told
// (zero: now).
func (s *heartbeatSignaller) dueAt(rolloutID string, u wf.LeaseUpdate) time.Time {
	t, ok := s.told[rolloutID]
	if !ok || t.u.Epoch != u.Epoch {
		return time.Time{}
	}
	lead := max(t.u.ExpiresAt.Sub(t.at)/deliveryLeadFraction, minDeliveryLead)
	at := t.u.ExpiresAt.Add(-lead)
	if !at.After(s.now()) {
		return time.Time{}
	}
	return at
}

// enqueue records the newest lease state of a rollout for delivery.
func (s *heartbeatSignaller) enqueue(rolloutID string, u wf.LeaseUpdate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pending[rolloutID]
	if ok && !newer(u, p.u) {
		return
	}
	if t, told := s.told[rolloutID]; told && !newer(u, t.u) {
		return // the workflow already knows this much
	}
	if !ok {
		p = &pendingSignal{}
		s.pending[rolloutID] = p
	}
	p.u = u
	if p.queued {
		return // delivery will take the newer value
	}
	at := s.dueAt(rolloutID, u)
	if at.IsZero() {
		s.queueLocked(rolloutID, p)
		return
	}
	if p.at.IsZero() || at.Before(p.at) {
		p.at = at
		heap.Push(&s.due, dueEntry{id: rolloutID, at: at})
		if s.due[0].id == rolloutID && s.due[0].at.Equal(at) { // the scheduler sleeps past it
			select {
			case s.wake <- struct{}{}:
			default:
			}
		}
	}
}

// queueLocked hands p to the signal workers.
func (s *heartbeatSignaller) queueLocked(rolloutID string, p *pendingSignal) {
	select {
	case s.ready <- rolloutID:
		p.queued, p.at = true, time.Time{}
	default:
		// The queue holds one entry per leased rollout; overflowing it means
		// more than 65,536 rollouts are leased on this API process. Dropping
		// is safe (the expiry timer re-reads the row) and is logged.
		delete(s.pending, rolloutID)
		s.log.Warn("heartbeat signal queue full; the workflow will read the lease at expiry", "rollout_id", rolloutID)
	}
}

// schedule queues deferred signals when they fall due and forgets told
// leases long past their expiry.
func (s *heartbeatSignaller) schedule() {
	timer := time.NewTimer(time.Hour)
	swept := s.now()
	for {
		s.mu.Lock()
		now := s.now()
		for len(s.due) > 0 && !s.due[0].at.After(now) {
			e := heap.Pop(&s.due).(dueEntry)
			if p, ok := s.pending[e.id]; ok && !p.queued && p.at.Equal(e.at) {
				s.queueLocked(e.id, p)
			}
		}
		if now.Sub(swept) >= toldRetention {
			for id, t := range s.told {
				if now.Sub(t.u.ExpiresAt) > toldRetention {
					delete(s.told, id)
				}
			}
			swept = now
		}
		next := toldRetention
		if len(s.due) > 0 {
			next = min(next, s.due[0].at.Sub(now))
		}
		s.mu.Unlock()
		timer.Reset(next) // since Go 1.23 Reset discards a stale tick
		select {
		case <-timer.C:
		case <-s.wake:
		}
	}
}

func (s *heartbeatSignaller) run() {
	for id := range s.ready {
		s.mu.Lock()
		p, ok := s.pending[id]
		delete(s.pending, id)
		s.mu.Unlock()
		if !ok {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := s.temporal.SignalWorkflow(ctx, wf.WorkflowID(id), "", wf.LeaseSignal, p.u)
		cancel()
		countSignal(signalHeartbeat, err)
		if err != nil {
			s.log.Warn("heartbeat signal not delivered; the workflow re-reads the lease at expiry", "rollout_id", id, "err", err)
			continue
		}
		s.delivered(id, p.u)
	}
}

// dueEntry is a deferred signal; entries whose pending signal was since
// queued or rescheduled are skipped when popped.
type dueEntry struct {
	id string
	at time.Time
}

// dueHeap orders deferred signals by due time (container/heap).
type dueHeap []dueEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
