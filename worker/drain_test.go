package worker

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"
)

// TestDrainKeepAlive_ResendsTheLastHeartbeatOnlyWhileTheWorkerStops runs an
// activity that heartbeats once and then works silently (as the
// simulation's hashing and commit do): nothing more is sent while the
// worker runs, and once the worker stops its last details are re-sent about
// every second until the activity returns.
func TestDrainKeepAlive_ResendsTheLastHeartbeatOnlyWhileTheWorkerStops(t *testing.T) {
	t.Parallel()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{&drainKeepAlive{}}})
	stop := make(chan struct{})
	env.SetWorkerStopChannel(stop)
	var mu sync.Mutex
	var beats [][2]int
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var n [2]int
		if err := details.Get(&n); err != nil {
			t.Errorf("heartbeat details: %v", err)
		}
		mu.Lock()
		beats = append(beats, n)
		mu.Unlock()
	})
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(beats) }

	started, release := make(chan struct{}), make(chan struct{})
	silentTail := func(ctx context.Context) error {
		activity.RecordHeartbeat(ctx, [2]int{3, 60})
		close(started)
		<-release
		return nil
	}
	env.RegisterActivity(silentTail)
	finished := make(chan error, 1)
	go func() { _, err := env.ExecuteActivity(silentTail); finished <- err }()
	<-started

	time.Sleep(1500 * time.Millisecond)
	if n := count(); n != 1 {
		t.Fatalf("a running worker must add no heartbeats of its own: %d", n)
	}
	close(stop)
	deadline := time.Now().Add(10 * time.Second)
	for count() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("a draining worker must keep the activity alive: %d heartbeats", count())
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(release)
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range beats {
		if b != [2]int{3, 60} {
			t.Fatalf("the keep-alive must re-send the last details, got %v", beats)
		}
	}
}
