package flywheel

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// The happy path of a heartbeat on SQLite in two prepared statements on
// database/sql, positional both ways: read the ten columns the fence
// needs (not the whole row, turn input and metadata included, through
// GORM's reflective scan), then the compare-and-swap on what was read.
// SQLite runs in the api's process on one connection, so the two
// statements cost no round trip; GORM's callbacks and reflection cost
// more CPU than they do (BenchmarkHeartbeat_SQLite).
const (
	heartbeatSQLiteRead = `SELECT api_key_hash, lease_token_hash, status, output_at, deadline_at,
		lease_expires_at, lease_seconds, lease_epoch, lease_granted_at, lease_granted_expiry
		FROM flywheel_rollouts WHERE id = ?`
	heartbeatSQLiteUpdate = `UPDATE flywheel_rollouts SET lease_expires_at = ?, lease_heartbeats = lease_heartbeats + 1
		WHERE id = ? AND status = ? AND lease_epoch = ? AND lease_token_hash = ? AND output_at IS NULL AND lease_expires_at > ?`
)

// readFenceSQLite reads the columns a lease's fence needs from rollout
// id's row on pool (heartbeatSQLiteRead); found is false when there is
// no such row.
func readFenceSQLite(ctx context.Context, pool gorm.ConnPool, id string) (r Rollout, found bool, err error) {
	r.ID = id
	// QueryContext, not QueryRowContext: GORM's prepared pool answers a
	// statement it could not prepare with a Row whose Scan panics.
	rows, err := pool.QueryContext(ctx, heartbeatSQLiteRead, id)
	if err != nil {
		return r, false, err
	}
	found = rows.Next()
	if found {
		err = rows.Scan(&r.APIKeyHash, &r.LeaseTokenHash, &r.Status, &r.OutputAt, &r.DeadlineAt,
			&r.LeaseExpiresAt, &r.LeaseSeconds, &r.LeaseEpoch, &r.LeaseGrantedAt, &r.LeaseGrantedExpiry)
	}
	return r, found, errors.Join(err, rows.Close(), rows.Err())
}

// heldRowSQLite reads h's rollout's fence columns on conn and names why
// h may not act on it now, or nil. A refusal with h's own key is named
// from the row read (leaseRefusal); with another key, authorize (on db)
// reads the lease history to tell an earlier lease's key (409) from a
// foreign or unknown one (403, 401).
func heldRowSQLite(db *gorm.DB, conn gorm.ConnPool, h Holder, now time.Time) (Rollout, error) {
	r, found, err := readFenceSQLite(db.Statement.Context, conn, h.RolloutID)
	if err != nil {
		return r, err
	}
	keyHash := Hash(h.APIKey)
	if found && sameHash(r.APIKeyHash, keyHash) {
		return r, leaseRefusal(r, keyHash, Hash(h.LeaseToken), now)
	}
	if r, err = authorize(db, h, now, false); err == nil {
		err = ErrStaleLease // the row changed between the two reads
	}
	return r, err
}

// heartbeatSQLite extends h's lease when the row shows it live and held
// by h (heartbeatHeldSQLite), its statements prepared by GORM's pool.
func heartbeatSQLite(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	return heartbeatHeldSQLite(db, db.Session(&gorm.Session{PrepareStmt: true}).Statement.ConnPool, h, now)
}

// heartbeatHeldSQLite extends h's lease when the row shows it live and
// held by h (heldRowSQLite), running its statements on pool (a
// transaction's, for a batch) and any read naming a refusal on db.
func heartbeatHeldSQLite(db *gorm.DB, pool gorm.ConnPool, h Holder, now time.Time) (Extension, error) {
	r, err := heldRowSQLite(db, pool, h, now)
	if err != nil {
		return Extension{}, err
	}
	next := extendedExpiry(r, now)
	res, err := pool.ExecContext(db.Statement.Context, heartbeatSQLiteUpdate, next, r.ID, StatusLeased, r.LeaseEpoch, r.LeaseTokenHash, now)
	if err != nil {
		return Extension{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return Extension{}, errors.Join(ErrStaleLease, err) // lost a race with expiry, a new lease or the output
	}
	return withGrant(db, r.ID, Extension{Epoch: r.LeaseEpoch, ExpiresAt: next.UTC()}, r.LeaseGrantedAt, r.LeaseGrantedExpiry)
}
