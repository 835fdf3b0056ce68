package flywheel

import (
	"context"
	"log/slog"
	"time"

	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// outputNotifier tells rollout workflows of accepted outputs off the
// request path. The row's compare-and-swap already accepted the output
// (the database is the authority), so the agent is answered at database
// speed. A notice that is late, dropped when the queue is full, or lost
// with this process is harmless: when the workflow's lease timer fires,
// ExpireLease finds the accepted output and the rollout completes
// (workflows/flywheel TestRollout_LostOutputNoticeIsFoundAtLeaseExpiry).
type outputNotifier struct {
	temporal Temporal
	log      *slog.Logger
	queue    chan outputNotice
}

type outputNotice struct {
	rolloutID string
	epoch     int64
}

// outputWorkers bounds concurrent output signals from one API process.
const outputWorkers = 8

func newOutputNotifier(t Temporal, log *slog.Logger) *outputNotifier {
	n := &outputNotifier{temporal: t, log: log, queue: make(chan outputNotice, 1<<14)}
	for range outputWorkers {
		go n.run()
	}
	return n
}

// notify queues the notice that rolloutID's output under epoch was accepted.
func (n *outputNotifier) notify(rolloutID string, epoch int64) {
	select {
	case n.queue <- outputNotice{rolloutID: rolloutID, epoch: epoch}:
	default:
		n.log.Warn("output notice queue full; the workflow finds the output at lease expiry", "rollout_id", rolloutID)
	}
}

func (n *outputNotifier) run() {
	for o := range n.queue {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := n.temporal.SignalWorkflow(ctx, wf.WorkflowID(o.rolloutID), "", wf.OutputSignal, wf.OutputNotice{Epoch: o.epoch})
		cancel()
		if err != nil {
			n.log.Warn("output signal not delivered; the workflow finds the output at lease expiry", "rollout_id", o.rolloutID, "err", err)
		}
	}
}
