package flywheel

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/flywheel"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// notifier tells rollout workflows of grants and accepted outputs off the
// request path, from the durable outbox (models.Notice) the claim and the
// output statements write. The request's process hands its notices over
// at once (notify); a notice whose send failed, or whose process died
// first, is picked up by any process's reconciler once it is due
// (models.NoticeGrace after it was written, then every retry). A notice is
// deleted only after the workflow was told (or has ended), in batches.
//
// Nothing on a request path waits for Temporal, and a notice sent late or
// twice is harmless: the workflow ignores an epoch it has passed, and its
// lease timer re-reads the row before it re-queues (ExpireLease), which
// also finds an output whose notice has not arrived yet.
type notifier struct {
	db         *gorm.DB
	temporal   Temporal
	log        *slog.Logger
	now        func() time.Time
	heartbeats *heartbeatSignaller

	queue     chan queuedNotice
	delivered chan models.NoticeKey
	// retry is how long a reconciled notice waits before it is sent again;
	// every is how often the reconciler looks for due notices, taking at
	// most batch of them a statement.
	retry, every time.Duration
	batch        atomic.Int64
	// busy reports whether agent requests are in flight in this process;
	// a queued notice yields to them for at most yield after it was queued
	// (outputYield for an output's notice).
	busy               func() bool
	yield, outputYield time.Duration
	// pending are the notices handed to this process's workers and not
	// sent yet: the reconciler leaves them to the workers rather than
	// queueing a second copy of a notice that is only waiting its turn.
	pending sync.Map // models.NoticeKey → time.Time it falls due (pendingDue)
}

// queuedNotice is a notice handed to the workers, and when.
type queuedNotice struct {
	models.Notice
	at time.Time
}

// Notifier sizing: concurrent signal RPCs of one process, and the largest
// batch the reconciler takes and the deleter removes in one statement. Few
// workers on purpose: a burst of outputs queues its notices and drains
// them at Temporal's pace after the burst (a few hundred a second per
// process), instead of a Temporal backlog competing with the burst's own
// requests for the machine. For the same reason a notice waits while
// agent requests are in flight here, for at most noticeYield after it was
// queued (then it goes whatever the load, so a steady load delays
// notices by noticeYield and no more): each signal sets off a workflow
// task, an activity and a visibility write, which on a shared machine
// (gatehouse dev, or Temporal beside the api) would otherwise take the
// CPU the burst's requests are waiting for. An output's notice yields
// longer (outputNoticeYield), past the end of a burst of outputs as long
// as a 5,000-rollout fleet's last heartbeat is (their notices sent any
// sooner took the CPU from that beat's heartbeats in gatehouse dev): it
// only lets the workflow close, the output being final in the database
// already, while a grant's notice arms the lease's expiry timer. Each
// stays under its grace (models.NoticeGrace, models.OutputNoticeGrace),
// after which another process's reconciler may send the notice too.
// noticeYieldPoll is how often a waiting notice looks again. A reconciler
// takes at most noticeRounds batches a tick.
const (
	noticeYield       = time.Second
	outputNoticeYield = 10 * time.Second
	noticeYieldPoll   = 2 * time.Millisecond
	noticeWorkers     = 4
	noticeBatch       = 256
	noticeDeleteTick  = 20 * time.Millisecond
	noticeRetry       = 10 * time.Second
	noticeReconcile   = time.Second
	noticeRounds      = 16
)

// A notice still waiting in this process's queue (yielding to requests,
// or behind a backlog Temporal drains at its own pace) when it is due
// within noticeHoldFor is held, every noticeHoldTick: its due time moves
// to noticeHoldFor from now, so no other api replica's reconciler takes
// it past its grace and tells the workflow a second time (which a burst's
// drain then pays for twice). A notice due later costs no statement:
// an output's notice is due OutputNoticeGrace after the output, so
// nothing is held during the burst of outputs itself. If this process
// dies, its notices fall due within noticeHoldFor.
const (
	noticeHoldTick = 2 * time.Second
	noticeHoldFor  = 6 * time.Second
)

func newNotifier(db *gorm.DB, t Temporal, log *slog.Logger, now func() time.Time, hb *heartbeatSignaller, busy func() bool) *notifier {
	n := &notifier{db: db, temporal: t, log: log, now: now, heartbeats: hb,
		queue: make(chan queuedNotice, 1<<14), delivered: make(chan models.NoticeKey, 1<<14),
		retry: noticeRetry, every: noticeReconcile, busy: busy, yield: noticeYield, outputYield: outputNoticeYield}
	n.batch.Store(noticeBatch)
	for range noticeWorkers {
		go n.run()
	}
	go n.deleteDelivered()
	go n.reconcile()
	if db.Dialector.Name() == "postgres" { // SQLite has one process, whose reconciler skips its own queue
		go n.holdPending()
	}
	return n
}

// notify hands notices just written to the workers. A full queue drops
// them: the reconciler sends them once due.
func (n *notifier) notify(ns ...models.Notice) {
	at, queued := time.Now(), n.now()
	for _, x := range ns {
		n.pending.Store(x.Key(), pendingDue(x, queued))
		select {
		case n.queue <- queuedNotice{Notice: x, at: at}:
		default:
			n.pending.Delete(x.Key())
			n.log.Warn("notice queue full; the reconciler sends it", "rollout_id", x.RolloutID, "kind", x.Kind)
		}
	}
}

func (n *notifier) run() {
	for q := range n.queue {
		x := q.Notice
		n.yieldToRequests(q.at, x.Kind)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := n.send(ctx, x)
		cancel()
		n.pending.Delete(x.Key())
		countSignal(x.Kind, err)
		if err != nil && !workflowEnded(err) {
			n.log.Warn("notice not delivered; the reconciler retries it", "rollout_id", x.RolloutID, "kind", x.Kind, "err", err)
			continue
		}
		// Told, or the workflow has ended and needs no telling.
		select {
		case n.delivered <- x.Key():
		default: // the reconciler re-sends it; harmless
		}
	}
}

// yieldToRequests waits while agent requests are in flight, until the
// yield of a notice of kind after queued.
func (n *notifier) yieldToRequests(queued time.Time, kind string) {
	yield := n.yield
	if kind == models.NoticeOutput {
		yield = n.outputYield
	}
	for n.busy() && time.Since(queued) < yield {
		time.Sleep(noticeYieldPoll)
	}
}

// send signals x's workflow.
func (n *notifier) send(ctx context.Context, x models.Notice) error {
	id := wf.WorkflowID(x.RolloutID)
	if x.Kind == models.NoticeOutput {
		return n.temporal.SignalWorkflow(ctx, id, "", wf.OutputSignal, wf.OutputNotice{Epoch: x.Epoch})
	}
	u := wf.LeaseUpdate{Epoch: x.Epoch}
	if x.ExpiresAt != nil {
		u.ExpiresAt = x.ExpiresAt.UTC()
	}
	if err := n.temporal.SignalWorkflow(ctx, id, "", wf.LeaseSignal, u); err != nil {
		return err
	}
	n.heartbeats.delivered(x.RolloutID, u) // its heartbeats' signals can wait for this expiry
	return nil
}

// deleteDelivered removes delivered notices in batches. A failed delete
// only means the reconciler sends those notices once more.
func (n *notifier) deleteDelivered() {
	tick := time.NewTicker(noticeDeleteTick)
	defer tick.Stop()
	var batch []models.NoticeKey
	flush := func() {
		if len(batch) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := models.DeleteNotices(ctx, n.db, batch); err != nil {
			n.log.Warn("delete delivered notices; they will be sent again", "n", len(batch), "err", err)
		}
		cancel()
		batch = batch[:0]
	}
	for {
		select {
		case k := <-n.delivered:
			batch = append(batch, k)
			if len(batch) >= noticeBatch {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

// holdPending holds, every noticeHoldTick, the notices long in this
// process's queue (holdPendingOnce).
func (n *notifier) holdPending() {
	tick := time.NewTicker(noticeHoldTick)
	defer tick.Stop()
	for range tick.C {
		n.holdPendingOnce()
	}
}

// pendingDue is when notice x, queued at queued, falls due for any
// process's reconciler: its due time as the statement that wrote it set
// it, or, not knowing it, at once.
func pendingDue(x models.Notice, queued time.Time) time.Time {
	if x.DueAt.IsZero() {
		return queued
	}
	return x.DueAt
}

// holdPendingOnce moves the due time of each notice queued here, not yet
// sent and due within noticeHoldFor, to noticeHoldFor from now
// (models.HoldNotices). It returns how many notices it named and how many
// moved. A failure only means another replica may send some of them too.
func (n *notifier) holdPendingOnce() (named int, held int64) {
	now := n.now()
	until := now.Add(noticeHoldFor)
	var keys []models.NoticeKey
	n.pending.Range(func(k, due any) bool {
		if due.(time.Time).Before(until) {
			keys = append(keys, k.(models.NoticeKey))
		}
		return true
	})
	if len(keys) == 0 {
		return 0, 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	held, err := models.HoldNotices(ctx, n.db, keys, until)
	if err != nil {
		n.log.Warn("hold queued notices; another replica may send them too", "n", len(keys), "err", err)
		return len(keys), held
	}
	for _, k := range keys {
		if due, ok := n.pending.Load(k); ok {
			n.pending.CompareAndSwap(k, due, until) // not if sent meanwhile
		}
	}
	return len(keys), held
}

// reconcile sends, every n.every, the notices nobody delivered in time: a
// process that died between its statement and its signal, a Temporal
// outage, a full queue.
func (n *notifier) reconcile() {
	tick := time.NewTicker(n.every)
	defer tick.Stop()
	for range tick.C {
		n.reconcileOnce()
	}
}

// reconcileOnce takes the due notices (pushing their next try n.retry
// later, or deferring a grant whose lease heartbeats moved) and queues
// those not already waiting in this process's queue; it returns how many
// it queued. While batches come back full and no agent request is being
// served it takes another, up to noticeRounds: a claim burst's grant
// notices fall due together, and most of them only wait again, but that
// work yields to the agents (on SQLite each batch holds the one writer).
func (n *notifier) reconcileOnce() int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	queued := 0
	for round := range noticeRounds {
		if round > 0 && n.busy() {
			break
		}
		due, full, err := models.DueNotices(ctx, n.db, n.now(), n.retry, int(n.batch.Load()))
		if err != nil {
			n.log.Warn("reconcile notices", "err", err)
			return queued
		}
		fresh := due[:0]
		for _, x := range due {
			if _, waiting := n.pending.Load(x.Key()); !waiting {
				fresh = append(fresh, x)
			}
		}
		n.notify(fresh...)
		queued += len(fresh)
		if !full {
			break
		}
	}
	return queued
}
