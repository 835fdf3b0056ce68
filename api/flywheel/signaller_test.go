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
}

func (s *slowTemporal) ExecuteWorkflow(context.Context, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, nil
}

func (s *slowTemporal) SignalWorkflow(_ context.Context, id, _, _ string, arg any) error {
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got[id] = append(s.got[id], arg.(wf.LeaseUpdate))
	return nil
}

func TestHeartbeatSignaller_CoalescesToTheNewestLeaseState(t *testing.T) {
	t.Parallel()
	tc := &slowTemporal{got: map[string][]wf.LeaseUpdate{}, release: make(chan struct{})}
	s := newHeartbeatSignaller(tc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	base := time.Unix(1_800_000_000, 0).UTC()
	// Occupy every worker with one rollout each so the next heartbeats queue up.
	for i := range signalWorkers {
		s.enqueue(string(rune('a'+i)), wf.LeaseUpdate{Epoch: 1, ExpiresAt: base})
	}
	time.Sleep(50 * time.Millisecond)
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
