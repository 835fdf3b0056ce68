package sqlitedb

import (
	"database/sql"
	"sync"
	"time"
)

// checkpointing is when the checkpointer works: a passive checkpoint
// every interval, and a restart of the log once a checkpoint finds it
// longer than restartFrames.
type checkpointing struct {
	interval      time.Duration
	restartFrames int
}

// defaultCheckpointing checkpoints four times a second and restarts the
// log past 10,000 frames (about 40 MB), the size at which commits used to
// checkpoint by themselves.
var defaultCheckpointing = checkpointing{interval: 250 * time.Millisecond, restartFrames: 10000}

// checkpointer copies the write-ahead log back into the database file
// from a connection of its own. When the committing connection did it
// (SQLite's autocheckpoint), the commit that crossed the threshold waited
// for the whole copy and its fsyncs, and every statement queued behind
// that one connection waited too: 40-50 ms stalls every few thousand
// heartbeats on gatehouse dev. A passive checkpoint here runs beside the
// writer. It cannot restart the log while commits keep appending to it,
// though, and a restart from this connection would wait for a gap between
// commits that a busy writer never leaves. So once the log is long, the
// restart is queued on the database's own connection like any statement:
// it copies only the frames committed since the passive pass, then the
// next commit writes the log from its start again. A failed checkpoint
// leaves the log as it was, for the next one to copy.
type checkpointer struct {
	own   *sql.DB // the checkpointer's connection
	every checkpointing
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// newCheckpointer is a checkpointer on own, a database of its own on the
// file; start runs it.
func newCheckpointer(own *sql.DB, every checkpointing) *checkpointer {
	own.SetMaxOpenConns(1)
	return &checkpointer{own: own, every: every, stop: make(chan struct{}), done: make(chan struct{})}
}

// start checkpoints in the background, restarting the log through writer,
// the database whose log it is, until Close.
func (c *checkpointer) start(writer *sql.DB) { go c.run(writer) }

func (c *checkpointer) run(writer *sql.DB) {
	defer close(c.done)
	tick := time.NewTicker(c.every.interval)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		if frames, err := checkpoint(c.own, "PASSIVE"); err == nil && frames > c.every.restartFrames {
			_, _ = checkpoint(writer, "RESTART")
		}
	}
}

// checkpoint runs one checkpoint in mode on db and returns how many frames
// the log held when it ran.
func checkpoint(db *sql.DB, mode string) (frames int, err error) {
	var busy, checkpointed int
	err = db.QueryRow("PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &checkpointed)
	return frames, err
}

// Close stops the checkpointer, waiting for a checkpoint under way, and
// closes its connection.
func (c *checkpointer) Close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.done
	return c.own.Close()
}
