package worker

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
)

// drainHeartbeatInterval is how often a draining worker re-sends a running
// activity's last heartbeat: well inside the shortest heartbeat timeout
// Gatehouse's workflows set (5 s).
const drainHeartbeatInterval = time.Second

// drainKeepAlive keeps a stopping worker's in-flight activities alive
// while it drains them. On stop the SDK flushes each activity's pending
// heartbeat at once, which spends the batch window whose later flush would
// otherwise have covered the activity's last phase; an activity that does
// not heartbeat in that phase (the simulation's hashing and commit) then
// hits its heartbeat timeout under load and is retried elsewhere from
// scratch, while this worker finishes it for nothing. From the moment the
// worker stops until the activity returns, its last heartbeat details are
// re-sent every drainHeartbeatInterval.
type drainKeepAlive struct {
	interceptor.WorkerInterceptorBase
}

// InterceptActivity implements interceptor.WorkerInterceptor; it is called
// once per activity execution.
func (*drainKeepAlive) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &drainingActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, last: &lastHeartbeat{}}
}

// drainingActivity is one activity execution under drainKeepAlive.
type drainingActivity struct {
	interceptor.ActivityInboundInterceptorBase
	last *lastHeartbeat
}

// Init wraps the outbound side, so the activity's own heartbeats are seen.
func (a *drainingActivity) Init(outbound interceptor.ActivityOutboundInterceptor) error {
	return a.Next.Init(&heartbeatRecorder{ActivityOutboundInterceptorBase: interceptor.ActivityOutboundInterceptorBase{Next: outbound}, last: a.last})
}

// ExecuteActivity runs the activity with the drain keep-alive beside it.
func (a *drainingActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (interface{}, error) {
	done := make(chan struct{})
	defer close(done)
	go a.keepAliveWhileDraining(ctx, done)
	return a.Next.ExecuteActivity(ctx, in)
}

// keepAliveWhileDraining waits for the worker to stop, then re-sends the
// last heartbeat until the activity returns.
func (a *drainingActivity) keepAliveWhileDraining(ctx context.Context, done <-chan struct{}) {
	select {
	case <-done:
		return
	case <-ctx.Done():
		return
	case <-activity.GetWorkerStopChannel(ctx):
	}
	tick := time.NewTicker(drainHeartbeatInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
			activity.RecordHeartbeat(ctx, a.last.get()...)
		}
	}
}

// heartbeatRecorder remembers the details of each heartbeat it passes on.
type heartbeatRecorder struct {
	interceptor.ActivityOutboundInterceptorBase
	last *lastHeartbeat
}

// RecordHeartbeat implements interceptor.ActivityOutboundInterceptor.
func (h *heartbeatRecorder) RecordHeartbeat(ctx context.Context, details ...interface{}) {
	h.last.set(details)
	h.Next.RecordHeartbeat(ctx, details...)
}

// lastHeartbeat is an activity's most recent heartbeat details.
type lastHeartbeat struct {
	mu      sync.Mutex
	details []interface{}
}

func (l *lastHeartbeat) set(details []interface{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.details = details
}

func (l *lastHeartbeat) get() []interface{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.details
}
