package flywheel

import (
	"errors"
	"time"

	"gorm.io/gorm"
)

// DueNotices on SQLite in positional statements on database/sql: one read
// of the due notices with their leases as the rollouts' rows have them
// now, then one update of each notice's due time, in a transaction. A
// claim burst's grant notices fall due together and nearly all are only
// deferred again, on the dev database's one connection, which every
// heartbeat waits for meanwhile; GORM's statement building, and a read
// and an update of each notice apart, held it four to five times as long
// (BenchmarkDueNotices_SQLite).
const (
	dueNoticesSQLiteRead = `SELECT n.rollout_id, n.epoch, n.kind, n.expires_at, n.due_at, n.created_at,
		r.lease_expires_at, r.lease_granted_at, r.lease_seconds
		FROM flywheel_notices n LEFT JOIN flywheel_rollouts r ON r.id = n.rollout_id AND r.lease_epoch = n.epoch AND r.status = ?
		WHERE n.due_at <= ? ORDER BY n.due_at LIMIT ?`
	dueNoticesSQLiteUpdate = `UPDATE flywheel_notices SET due_at = ? WHERE rollout_id = ? AND epoch = ? AND kind = ?`
)

// dueNoticesSQLite is DueNotices's statements on SQLite, in a transaction:
// each notice taken is deferred again (grantDeferredAgain) or due next.
func dueNoticesSQLite(db *gorm.DB, now, next time.Time, limit int) ([]dueNotice, error) {
	var rows []dueNotice
	err := db.Transaction(func(tx *gorm.DB) error {
		ctx, conn := tx.Statement.Context, tx.Statement.ConnPool
		var err error
		if rows, err = readDueNoticesSQLite(tx, now, limit); err != nil {
			return err
		}
		for i := range rows {
			d := &rows[i]
			if !d.Deferred {
				d.DueAt = next
			}
			if _, err := conn.ExecContext(ctx, dueNoticesSQLiteUpdate, d.DueAt, d.RolloutID, d.Epoch, d.Kind); err != nil {
				return err
			}
		}
		return nil
	})
	return rows, err
}

// readDueNoticesSQLite reads up to limit notices due at now, oldest first,
// each with its lease as the rollout's row has it (when that lease is
// still held) and whether it is deferred again, and until when.
func readDueNoticesSQLite(tx *gorm.DB, now time.Time, limit int) ([]dueNotice, error) {
	q, err := tx.Statement.ConnPool.QueryContext(tx.Statement.Context, dueNoticesSQLiteRead, StatusLeased, now, limit)
	if err != nil {
		return nil, err
	}
	var rows []dueNotice
	for q.Next() {
		var d dueNotice
		var r Rollout
		var seconds *float64
		if err := q.Scan(&d.RolloutID, &d.Epoch, &d.Kind, &d.ExpiresAt, &d.DueAt, &d.CreatedAt,
			&r.LeaseExpiresAt, &r.LeaseGrantedAt, &seconds); err != nil {
			return nil, errors.Join(err, q.Close())
		}
		if seconds != nil { // the lease is still held
			r.LeaseSeconds = *seconds
			d.CurrentExpiresAt = r.LeaseExpiresAt
			d.Deferred, d.DueAt = grantDeferredAgain(d.Notice, r, now)
		}
		rows = append(rows, d)
	}
	return rows, errors.Join(q.Err(), q.Close())
}
