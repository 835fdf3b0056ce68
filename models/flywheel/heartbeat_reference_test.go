package flywheel

import (
	"time"

	"gorm.io/gorm"
)

// heartbeatPrepared is heartbeatReadThenUpdate with its statements (the
// same text at every heartbeat) prepared once and kept, on SQLite's one
// connection: the dev database's heartbeat before heartbeatSQLite, a
// third less CPU than parsing them at each call (BenchmarkHeartbeat_SQLite).
func heartbeatPrepared(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	return heartbeatReadThenUpdate(db.Session(&gorm.Session{PrepareStmt: true}), h, now)
}

// heartbeatReadThenUpdate authorizes from a read of the whole row through
// GORM, then extends with a compare-and-swap on what it read: the
// benchmarks' reference for the heartbeats ExtendLease runs.
func heartbeatReadThenUpdate(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	r, err := authorize(db, h, now, false)
	if err != nil {
		return Extension{}, err
	}
	expires := extendedExpiry(r, now)
	res := db.Model(&Rollout{}).
		Where("id = ? AND status = ? AND lease_epoch = ? AND lease_token_hash = ? AND output_at IS NULL AND lease_expires_at > ?",
			r.ID, StatusLeased, r.LeaseEpoch, r.LeaseTokenHash, now).
		Updates(map[string]any{"lease_expires_at": expires, "lease_heartbeats": gorm.Expr("lease_heartbeats + 1")})
	if res.Error != nil {
		return Extension{}, res.Error
	}
	if res.RowsAffected != 1 {
		return Extension{}, ErrStaleLease // lost a race with expiry, a new lease or the output
	}
	return withGrant(db, r.ID, Extension{Epoch: r.LeaseEpoch, ExpiresAt: expires}, r.LeaseGrantedAt, r.LeaseGrantedExpiry)
}
