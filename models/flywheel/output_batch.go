package flywheel

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// OutputBatcher accepts outputs exactly as AcceptOutput does, but the
// outputs that arrive while a commit is under way are committed together:
// on PostgreSQL one statement (acceptOutputsPostgres), one round trip and
// one WAL flush for the batch, where one statement per output pays its
// own; on SQLite one transaction (commitSQLite), one commit where each
// output paid its own. An output that arrives at an idle batcher goes at
// once, so a batch never waits for company; a burst forms batches by
// itself while the previous ones commit. Each output is still answered
// only after its commit, so an accepted output is as durable as before.
type OutputBatcher struct {
	db     *gorm.DB
	queue  chan *batchedOutput
	sqlite bool
	// prepared keeps an output's statements prepared on SQLite.
	prepared preparedSQLite
}

// batchedOutput is one caller's output waiting in an OutputBatcher.
type batchedOutput struct {
	h    Holder
	o    Output
	now  time.Time
	done chan batchAnswer
}

func (x *batchedOutput) rollout() string { return x.h.RolloutID }

// batchAnswer is what a commit decided for one output: accepted at epoch,
// not accepted (the caller names the refusal), or err.
type batchAnswer struct {
	epoch    int64
	accepted bool
	err      error
	// sameBody answers a repeat (err ErrOutputAccepted) on SQLite, whose
	// commit names each refusal itself.
	sameBody bool
}

// Output batching: batches committing at once per process (one on
// SQLite, which has one writer), the largest batch, and how long one
// commit may take on PostgreSQL (SQLite's run without a deadline:
// withoutDeadline).
const (
	outputCommitters   = 2
	outputBatchMax     = 64
	outputBatchTimeout = 10 * time.Second
)

// NewOutputBatcher starts the batcher's committers. They live as long as
// the process.
func NewOutputBatcher(db *gorm.DB) *OutputBatcher {
	b, committers := newOutputBatcher(db)
	for range committers {
		go serveBatches(b.queue, outputBatchMax, b.commit)
	}
	return b
}

// newOutputBatcher is the batcher on db before its committers start, and
// how many commit: one on SQLite, which has one writer and whose
// statements the batcher runs without a deadline (withoutDeadline); every
// other use of its db sets a context of its own.
func newOutputBatcher(db *gorm.DB) (*OutputBatcher, int) {
	b := &OutputBatcher{db: db, sqlite: db.Dialector.Name() == "sqlite", queue: make(chan *batchedOutput, 4*outputBatchMax)}
	if b.sqlite {
		b.db = withoutDeadline(db)
		return b, 1
	}
	return b, outputCommitters
}

// Accept stores the holder's output once, as AcceptOutput.
func (b *OutputBatcher) Accept(ctx context.Context, h Holder, o Output, now time.Time) (epoch int64, sameBody bool, err error) {
	x := &batchedOutput{h: h, o: o, now: dbTime(now), done: make(chan batchAnswer, 1)}
	select {
	case b.queue <- x:
	case <-ctx.Done():
		return 0, false, ctx.Err()
	}
	// Once queued the output may commit whatever the caller does, so the
	// answer is awaited (the commit has its own timeout).
	return b.resolve(ctx, x, <-x.done)
}

// resolve turns the commit's answer for x into Accept's results, naming
// the refusal of an output the commit did not accept.
func (b *OutputBatcher) resolve(ctx context.Context, x *batchedOutput, a batchAnswer) (int64, bool, error) {
	switch {
	case a.err != nil:
		return 0, a.sameBody, a.err
	case a.accepted:
		return a.epoch, false, nil
	}
	return outputRefusal(b.db.WithContext(ctx), x.h, x.o, x.now)
}

// commit runs one batch and answers each of its outputs. A batch the
// store refuses as a whole for one output's value (SQLSTATE class 22:
// data exception) is retried one output at a time, so only that output
// is refused; so is a batch PostgreSQL aborted as a deadlock's victim,
// which wrote nothing. Batches lock their rows in one order
// (inLockOrder), so that abort is left to plans that do not walk the
// input in order (a small table read whole).
func (b *OutputBatcher) commit(batch []*batchedOutput) {
	if b.sqlite {
		commitSQLite(b.db, &b.prepared, batch)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), outputBatchTimeout)
	defer cancel()
	db := b.db.WithContext(ctx)
	if len(batch) == 1 {
		answerAlone(db, batch[0])
		return
	}
	epochs, err := acceptOutputsStatement(db, batch)
	for _, x := range batch {
		switch {
		case err != nil && (ValueRefused(err) || deadlocked(err)):
			answerAlone(db, x)
		case err != nil:
			x.done <- batchAnswer{err: err}
		default:
			epoch, ok := epochs[x.h.RolloutID]
			x.done <- batchAnswer{epoch: epoch, accepted: ok}
		}
	}
}

// answerAlone commits x by itself (acceptOutputPostgres) and answers it.
func answerAlone(db *gorm.DB, x *batchedOutput) {
	epoch, ok, err := acceptOutputStatement(db, x.h, x.o, x.now)
	x.done <- batchAnswer{epoch: epoch, accepted: ok, err: err}
}

// ValueRefused reports whether the database refused a value itself
// (SQLSTATE class 22, data exception: a NUL in text, invalid JSON and the
// like): no retry can succeed, so it is the caller's error, not an outage.
func ValueRefused(err error) bool {
	return sqlStateHas(err, "22")
}

// deadlocked tells whether err is PostgreSQL aborting a statement to
// break a deadlock (SQLSTATE 40P01): nothing was written, and it may run
// again.
func deadlocked(err error) bool { return sqlStateHas(err, "40P01") }

// sqlStateHas tells whether err carries an SQLSTATE starting with prefix.
func sqlStateHas(err error, prefix string) bool {
	var state interface{ SQLState() string }
	return errors.As(err, &state) && strings.HasPrefix(state.SQLState(), prefix)
}
