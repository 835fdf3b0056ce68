package flywheel

import (
	"context"
	"database/sql"
	"time"

	"gorm.io/gorm"
)

// HeartbeatBatcher extends leases exactly as ExtendLease does, but the
// heartbeats that arrive while a batch is under way are extended together:
// on PostgreSQL in one statement (heartbeatsPostgres), one round trip,
// one parse, plan and commit for the batch, where each heartbeat paid its
// own; on SQLite in one transaction (extendSQLite), one commit, run back
// to back by one goroutine that holds the one connection, where each
// heartbeat waited for the connection and committed alone. A heartbeat
// that finds a runner idle goes at once, alone, so a batch never waits
// for company; under a burst the queue forms batches by itself, and the
// more the database falls behind the more each batch carries. The queue
// is served in arrival order.
type HeartbeatBatcher struct {
	pool  *sql.DB
	db    *gorm.DB
	queue chan *waitingBeat
	// prepared keeps a heartbeat's statements prepared on SQLite.
	prepared preparedSQLite
}

// waitingBeat is one heartbeat waiting in a HeartbeatBatcher, stamped
// with when it arrived.
type waitingBeat struct {
	h    Holder
	now  time.Time
	done chan beatAnswer
}

// beatAnswer is what a batch decided for one heartbeat: the extension,
// or err (a refusal is named before it is answered).
type beatAnswer struct {
	e   Extension
	err error
}

// Heartbeat batching: batches under way at once per process on
// PostgreSQL (each on a connection of the pool, which must allow at least
// this many; one on SQLite, which has one writer), the largest batch, and
// how long one batch may take on PostgreSQL (SQLite's run without a
// deadline: withoutDeadline).
const (
	heartbeatRunners      = 2
	heartbeatBatchMax     = 128
	heartbeatBatchTimeout = 10 * time.Second
)

// NewHeartbeatBatcher starts the batcher's runners on db's pool; they
// live as long as the process. It returns nil for a database that is
// neither PostgreSQL nor SQLite or whose pool is not a *sql.DB (use
// ExtendLease).
func NewHeartbeatBatcher(db *gorm.DB) *HeartbeatBatcher {
	b, extend, runners := newHeartbeatBatcher(db)
	for range runners {
		go serveBatches(b.queue, heartbeatBatchMax, extend)
	}
	return b
}

// newHeartbeatBatcher is the batcher on db's pool before its runners
// start, the function they extend a batch with, and how many run; nil
// and none where NewHeartbeatBatcher returns nil. On SQLite the batcher's
// statements run without a deadline (withoutDeadline).
func newHeartbeatBatcher(db *gorm.DB) (*HeartbeatBatcher, func([]*waitingBeat), int) {
	pool, ok := db.Statement.ConnPool.(*sql.DB)
	if !ok {
		return nil, nil, 0
	}
	b := &HeartbeatBatcher{pool: pool, db: db, queue: make(chan *waitingBeat, 4*heartbeatBatchMax)}
	switch db.Dialector.Name() {
	case "postgres":
		return b, b.extend, heartbeatRunners
	case "sqlite":
		b.db = withoutDeadline(db)
		return b, b.extendSQLite, 1
	}
	return nil, nil, 0
}

// Extend is ExtendLease for holder h at now (when the heartbeat arrived).
func (b *HeartbeatBatcher) Extend(ctx context.Context, h Holder, now time.Time) (Extension, error) {
	x := &waitingBeat{h: h, now: dbTime(now), done: make(chan beatAnswer, 1)}
	select {
	case b.queue <- x:
	case <-ctx.Done():
		return Extension{}, ctx.Err()
	}
	// Once queued the heartbeat may land whatever the caller does, so the
	// answer is awaited (the batch has its own timeout).
	a := <-x.done
	return a.e, a.err
}

// extend runs one batch and answers each of its heartbeats: a lone one
// by the one-heartbeat statement, more in one heartbeatsPostgres. A
// heartbeat the batch did not extend is refused for its own reason
// (refusedBeat), as it would be alone.
func (b *HeartbeatBatcher) extend(batch []*waitingBeat) {
	ctx, cancel := context.WithTimeout(context.Background(), heartbeatBatchTimeout)
	defer cancel()
	db := b.db.WithContext(ctx)
	if len(batch) == 1 {
		x := batch[0]
		e, err := heartbeatOneStatement(ctx, db, x.h, x.now)
		x.done <- beatAnswer{e, err}
		return
	}
	rows, err := extendAllOnConn(ctx, b.pool, batch)
	for _, x := range batch {
		switch row, ok := rows[x.h.RolloutID]; {
		case err != nil:
			x.done <- beatAnswer{err: err}
		case ok:
			e, err := extensionOf(db, x.h.RolloutID, row)
			x.done <- beatAnswer{e, err}
		default:
			x.done <- beatAnswer{err: refusedBeat(db, x.h, x.now)}
		}
	}
}

func (x *waitingBeat) rollout() string { return x.h.RolloutID }
