package flywheel

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// slowTemporal records signals and blocks each one until released.
type slowTemporal struct {
	mu      sync.Mutex
	got     map[string][]wf.LeaseUpdate
	release chan struct{}
	waiting int // signals blocked on release
}

// blocked is how many signals wait on release now.
func (s *slowTemporal) blocked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

func (s *slowTemporal) ExecuteWorkflow(context.Context, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, nil
}

func (s *slowTemporal) SignalWorkflow(_ context.Context, id, _, _ string, arg any) error {
	s.mu.Lock()
	s.waiting++
	s.mu.Unlock()
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting--
	s.got[id] = append(s.got[id], arg.(wf.LeaseUpdate))
	return nil
}

func TestHeartbeatSignaller_CoalescesToTheNewestLeaseState(t *testing.T) {
	t.Parallel()
	tc := &slowTemporal{got: map[string][]wf.LeaseUpdate{}, release: make(chan struct{})}
	s := newHeartbeatSignaller(tc, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Now)
	base := time.Unix(1_800_000_000, 0).UTC()
	// Occupy every worker with one rollout each so the next heartbeats queue up.
	for i := range signalWorkers {
		s.enqueue(string(rune('a'+i)), wf.LeaseUpdate{Epoch: 1, ExpiresAt: base})
	}
	for tc.blocked() < signalWorkers { // every worker is busy: "hot" must queue
		time.Sleep(time.Millisecond)
	}
	for i := 1; i <= 50; i++ {
		s.enqueue("hot", wf.LeaseUpdate{Epoch: 1, ExpiresAt: base.Add(time.Duration(i) * time.Second)})
	}
	s.enqueue("hot", wf.LeaseUpdate{Epoch: 1, ExpiresAt: base.Add(10 * time.Second)}) // older: ignored
	close(tc.release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		tc.mu.Lock()
		hot := append([]wf.LeaseUpdate(nil), tc.got[wf.WorkflowID("hot")]...)
		tc.mu.Unlock()
		if len(hot) > 0 {
			if len(hot) != 1 || !hot[0].ExpiresAt.Equal(base.Add(50*time.Second)) {
				t.Fatalf("want one coalesced signal with the newest expiry, got %+v", hot)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queued heartbeat never delivered; delivered %d rollouts, pending %v", len(tc.got), s.pending)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordingTemporal records when each signal arrived.
type recordingTemporal struct {
	slowTemporal
	at []time.Time
}

func (r *recordingTemporal) SignalWorkflow(_ context.Context, id, _, _ string, arg any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got[id] = append(r.got[id], arg.(wf.LeaseUpdate))
	r.at = append(r.at, time.Now())
	return nil
}

func TestHeartbeatSignaller_DefersToShortlyBeforeTheToldExpiryAndFoldsHeartbeats(t *testing.T) {
	t.Parallel()
	tc := &recordingTemporal{slowTemporal: slowTemporal{got: map[string][]wf.LeaseUpdate{}}}
	s := newHeartbeatSignaller(tc, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Now)
	start := time.Now()
	// The claim told the workflow: epoch 1 until start+3s. The signal of a
	// heartbeat is due minDeliveryLead (2s) before that, at start+1s.
	s.delivered("r", wf.LeaseUpdate{Epoch: 1, ExpiresAt: start.Add(3 * time.Second)})
	s.enqueue("r", wf.LeaseUpdate{Epoch: 1, ExpiresAt: start.Add(4 * time.Second)})
	s.enqueue("r", wf.LeaseUpdate{Epoch: 1, ExpiresAt: start.Add(5 * time.Second)})
	s.enqueue("r", wf.LeaseUpdate{Epoch: 1, ExpiresAt: start.Add(2 * time.Second)}) // older than told: ignored
	// A new epoch is never deferred.
	s.enqueue("q", wf.LeaseUpdate{Epoch: 2, ExpiresAt: start.Add(time.Minute)})
	deadline := time.Now().Add(5 * time.Second)
	for {
		tc.mu.Lock()
		r, q, at := append([]wf.LeaseUpdate(nil), tc.got[wf.WorkflowID("r")]...), len(tc.got[wf.WorkflowID("q")]), append([]time.Time(nil), tc.at...)
		tc.mu.Unlock()
		if len(r) > 0 {
			if len(r) != 1 || !r[0].ExpiresAt.Equal(start.Add(5*time.Second)) {
				t.Fatalf("want one folded signal with the newest expiry, got %+v", r)
			}
			if q != 1 || len(at) != 2 || at[0].Sub(start) > 500*time.Millisecond {
				t.Fatalf("the new epoch must go at once: %d signals at %v", q, at)
			}
			if d := at[1].Sub(start); d < 900*time.Millisecond || d > 2500*time.Millisecond {
				t.Fatalf("deferred signal went after %s, want about 1s", d)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("deferred heartbeat signal never delivered")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestHeartbeatSignaller_ForgetsADeferredSignalOnceTheOutputIsAccepted(t *testing.T) {
	t.Parallel()
	tc := &recordingTemporal{slowTemporal: slowTemporal{got: map[string][]wf.LeaseUpdate{}}}
	s := newHeartbeatSignaller(tc, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Now)
	start := time.Now()
	s.delivered("r", wf.LeaseUpdate{Epoch: 1, ExpiresAt: start.Add(2500 * time.Millisecond)}) // due at start+0.5s
	s.enqueue("r", wf.LeaseUpdate{Epoch: 1, ExpiresAt: start.Add(4 * time.Second)})
	s.forget("r")
	time.Sleep(1500 * time.Millisecond)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if len(tc.at) != 0 {
		t.Fatalf("a forgotten rollout was signalled: %+v", tc.got)
	}
}
