package flywheel

import (
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
	heartbeatSQLiteRead = `SELECT api_key_hash, lease_token_hash, status, output_at IS NOT NULL, deadline_at,
		lease_expires_at, lease_seconds, lease_epoch, lease_granted_at, lease_granted_expiry
		FROM flywheel_rollouts WHERE id = ?`
	heartbeatSQLiteUpdate = `UPDATE flywheel_rollouts SET lease_expires_at = ?, lease_heartbeats = lease_heartbeats + 1
		WHERE id = ? AND status = ? AND lease_epoch = ? AND lease_token_hash = ? AND output_at IS NULL AND lease_expires_at > ?`
)

// heartbeatSQLite extends h's lease when the row shows it live and held
// by h; any other row (or none) goes to heartbeatPrepared, whose
// authorize names the refusal.
func heartbeatSQLite(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	pool := db.Session(&gorm.Session{PrepareStmt: true}).Statement.ConnPool
	var (
		keyHash, tokenHash, status string
		hasOutput                  bool
		deadline                   time.Time
		expires                    *time.Time
		seconds                    float64
		epoch                      int64
		grantedAt, grantedExpiry   *time.Time
	)
	// QueryContext, not QueryRowContext: GORM's prepared pool answers a
	// statement it could not prepare with a Row whose Scan panics.
	rows, err := pool.QueryContext(db.Statement.Context, heartbeatSQLiteRead, h.RolloutID)
	if err != nil {
		return Extension{}, err
	}
	found := rows.Next()
	if found {
		err = rows.Scan(&keyHash, &tokenHash, &status, &hasOutput, &deadline, &expires, &seconds, &epoch, &grantedAt, &grantedExpiry)
	}
	if err := errors.Join(err, rows.Close(), rows.Err()); err != nil {
		return Extension{}, err
	}
	if !found {
		return heartbeatPrepared(db, h, now)
	}
	live := status == StatusLeased && !hasOutput && now.Before(deadline) && expires != nil && now.Before(*expires)
	if !live || !sameHash(keyHash, Hash(h.APIKey)) || !sameHash(tokenHash, Hash(h.LeaseToken)) {
		return heartbeatPrepared(db, h, now)
	}
	next := now.Add(time.Duration(seconds * float64(time.Second)))
	if next.After(deadline) {
		next = deadline
	}
	res, err := pool.ExecContext(db.Statement.Context, heartbeatSQLiteUpdate, next, h.RolloutID, StatusLeased, epoch, tokenHash, now)
	if err != nil {
		return Extension{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return Extension{}, errors.Join(ErrStaleLease, err) // lost a race with expiry, a new lease or the output
	}
	return withGrant(db, h.RolloutID, Extension{Epoch: epoch, ExpiresAt: next.UTC()}, grantedAt, grantedExpiry)
}
