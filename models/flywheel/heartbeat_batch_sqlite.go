package flywheel

import "gorm.io/gorm"

// extendSQLite runs one batch of heartbeats on SQLite and answers each:
// a lone one as ExtendLease would, more in one transaction, each
// heartbeat read and extended as it would be alone (heartbeatHeldSQLite)
// and answered after the commit. A heartbeat refused for its own reason
// wrote nothing and gets that refusal; any other error undoes the whole
// batch and is every heartbeat's answer, as a failed commit would be.
// The batch's goroutine holds the one connection from its first
// statement to its commit, so a burst's heartbeats are not each handed
// the connection in turn: under a collector's mark phase, each handoff
// waits behind every runnable goroutine, and the turns added up.
func (b *HeartbeatBatcher) extendSQLite(batch []*waitingBeat) {
	db := b.db
	// Not preparing only costs the parsing: the batch goes on regardless.
	_ = b.prepared.prepare(db.Statement.Context, b.pool, heartbeatSQLiteRead, heartbeatSQLiteUpdate)
	if len(batch) == 1 {
		x := batch[0]
		e, err := heartbeatHeldSQLite(db, b.prepared.in(b.pool), x.h, x.now)
		x.done <- beatAnswer{e, err}
		return
	}
	answers := make([]beatAnswer, len(batch))
	err := eachInOneSQLiteTx(db, &b.prepared, len(batch), func(tx *gorm.DB, conn gorm.ConnPool, i int) error {
		e, err := heartbeatHeldSQLite(tx, conn, batch[i].h, batch[i].now)
		answers[i] = beatAnswer{e, err}
		return err
	})
	for i, x := range batch {
		if err != nil {
			answers[i] = beatAnswer{err: err}
		}
		x.done <- answers[i]
	}
}
