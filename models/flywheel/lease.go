package flywheel

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Errors of the lease-guarded operations; the API maps each to a status.
var (
	// ErrUnknownKey: the api key belongs to no lease (401).
	ErrUnknownKey = errors.New("unknown rollout api key")
	// ErrForeignKey: the api key belongs to another rollout (403).
	ErrForeignKey = errors.New("api key belongs to another rollout")
	// ErrStaleLease: the lease token is not the current lease's, or the
	// lease lapsed (409: fenced).
	ErrStaleLease = errors.New("stale lease: the lease token is not the current one, or the lease expired")
	// ErrGone: the rollout's deadline passed or it ended (410).
	ErrGone = errors.New("rollout is past its deadline or has ended")
	// ErrOutputAccepted: the rollout already has its output (409).
	ErrOutputAccepted = errors.New("rollout output already accepted")
)

// Holder is what a lease holder presents: the rollout's api key and the
// lease token (plaintext; hashed here).
type Holder struct {
	RolloutID  string
	APIKey     string
	LeaseToken string
}

// authorize checks a holder against a rollout row (read FOR UPDATE on
// PostgreSQL when tx is a transaction): key first (401/403), then the
// rollout's state (409 output / 410 gone), then the fence (409).
func authorize(tx *gorm.DB, h Holder, now time.Time, lock bool) (Rollout, error) {
	q := tx.Where("id = ?", h.RolloutID)
	if lock && tx.Dialector.Name() == "postgres" {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var r Rollout
	err := q.Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Rollout{}, keyError(tx, h)
	}
	if err != nil {
		return Rollout{}, err
	}
	keyHash := Hash(h.APIKey)
	if !sameHash(r.APIKeyHash, keyHash) {
		var n int64
		if err := tx.Model(&Lease{}).Where("rollout_id = ? AND api_key_hash = ?", r.ID, keyHash).Count(&n).Error; err != nil {
			return Rollout{}, err
		}
		if n == 0 {
			return Rollout{}, keyError(tx, h)
		}
		// A key of an earlier lease of this rollout: authenticated, fenced.
	}
	return r, leaseRefusal(r, keyHash, Hash(h.LeaseToken), now)
}

// leaseRefusal is why row r refuses a holder presenting these hashes at
// now (409 output / 410 gone / 409 fenced), or nil when the holder's lease
// is live: the state checks of authorize, after its key check.
func leaseRefusal(r Rollout, keyHash, tokenHash string, now time.Time) error {
	switch {
	case r.OutputAt != nil:
		return ErrOutputAccepted
	case r.Status == StatusCompleted || r.Status == StatusExcluded || !now.Before(r.DeadlineAt):
		return ErrGone
	case r.Status != StatusLeased || !sameHash(r.APIKeyHash, keyHash) || !sameHash(r.LeaseTokenHash, tokenHash):
		return ErrStaleLease
	case r.LeaseExpiresAt == nil || !now.Before(*r.LeaseExpiresAt):
		return ErrStaleLease
	}
	return nil
}

// extendedExpiry is where a heartbeat at now moves r's lease: its granted
// length from now, never past the deadline.
func extendedExpiry(r Rollout, now time.Time) time.Time {
	expires := now.Add(time.Duration(r.LeaseSeconds * float64(time.Second)))
	if expires.After(r.DeadlineAt) {
		return r.DeadlineAt
	}
	return expires
}

// keyError tells a key of another rollout (403) from an unknown one (401).
func keyError(tx *gorm.DB, h Holder) error {
	var n int64
	if err := leasesOfSecret(tx.Model(&Lease{}), h.APIKey).Where("api_key_hash = ?", Hash(h.APIKey)).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return ErrForeignKey
	}
	return ErrUnknownKey
}

// Extension is a heartbeat that landed: the lease's epoch and new expiry,
// and when the lease was granted and to what expiry (what its workflow was
// told at the least, so a caller can time its own notice).
type Extension struct {
	Epoch         int64
	ExpiresAt     time.Time
	GrantedAt     time.Time
	GrantedExpiry time.Time
}

// Heartbeat extends the holder's lease by its granted length (never past
// the deadline) with a compare-and-swap on (epoch, token, unexpired), and
// returns the epoch and the new expiry (see ExtendLease).
func Heartbeat(ctx context.Context, db *gorm.DB, h Holder, now time.Time) (int64, time.Time, error) {
	e, err := ExtendLease(ctx, db, h, now)
	return e.Epoch, e.ExpiresAt, err
}

// ExtendLease is Heartbeat with the lease's grant. The database is the
// authority for whether the heartbeat landed in time; the caller then
// tells the workflow, which re-reads the row if that notice is lost.
func ExtendLease(ctx context.Context, db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	now = dbTime(now)
	if db.Dialector.Name() == "postgres" {
		return heartbeatOneStatement(ctx, db, h, now)
	}
	return heartbeatSQLite(db.WithContext(ctx), h, now)
}

// heartbeatPostgres is the whole fenced compare-and-swap of a heartbeat in
// one autocommit statement: one round trip and no transaction on the
// happy path, where the read-then-update path costs four (SELECT, and
// GORM's BEGIN, UPDATE, COMMIT). Its WHERE is authorize's success case
// (key, token, status, no output, before deadline and expiry) and the row
// lock of the UPDATE makes it atomic against a concurrent claim, expiry or
// output. The lease's grant comes from the same row (written with the
// grant), not from a join on the lease history. Only a refused heartbeat
// pays a second read, to name its error. The row is found by its primary
// key alone (rowStatusIs). Its parameters are positional
// ($1 now, $2 id, $3 key hash, $4 token hash, $5 the leased status): it
// runs below GORM (see heartbeatOneStatement).
const heartbeatPostgres = `UPDATE flywheel_rollouts r
	SET lease_expires_at = LEAST(CAST($1 AS timestamptz) + make_interval(secs => r.lease_seconds), r.deadline_at),
		lease_heartbeats = r.lease_heartbeats + 1, updated_at = $1
	WHERE r.id = $2 AND r.api_key_hash = $3 AND r.lease_token_hash = $4 AND ` + rowStatusIs + `$5
		AND r.output_at IS NULL AND r.deadline_at > $1 AND r.lease_expires_at > $1
	RETURNING r.lease_epoch, r.lease_expires_at, r.lease_granted_at, r.lease_granted_expiry`

// heartbeatOneStatement runs heartbeatPostgres; when it updates nothing,
// authorize names the refusal (401, 403, 409 or 410). The heartbeat is
// the hottest statement of the flywheel, and what wraps it costs more
// than the statement itself: it skips GORM (named parameters, callbacks,
// reflective scans, a session per call) and, on a connection pool, also
// database/sql's row machinery (extendOnConn); inside a transaction it
// goes through database/sql.
func heartbeatOneStatement(ctx context.Context, db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	var (
		row leaseRow
		err error
	)
	if pool, ok := db.Statement.ConnPool.(*sql.DB); ok {
		row, err = extendOnConn(ctx, pool, h, now)
	} else {
		row, err = extendViaSQL(ctx, db.Statement.ConnPool, h, now)
	}
	switch {
	case err == nil:
		return extensionOf(db.WithContext(ctx), h.RolloutID, row)
	case !errors.Is(err, sql.ErrNoRows) && !errors.Is(err, pgx.ErrNoRows):
		return Extension{}, err
	}
	return Extension{}, refusedBeat(db.WithContext(ctx), h, now)
}

// extensionOf is the Extension of a row a heartbeat extended, its grant
// read from the lease history when the row does not keep it.
func extensionOf(db *gorm.DB, rolloutID string, row leaseRow) (Extension, error) {
	e := Extension{Epoch: row.epoch, ExpiresAt: row.expires.UTC()}
	if row.grantedAt.Valid && row.grantedExpiry.Valid {
		e.GrantedAt, e.GrantedExpiry = row.grantedAt.Time.UTC(), row.grantedExpiry.Time.UTC()
		return e, nil
	}
	return withGrant(db, rolloutID, e, nil, nil)
}

// refusedBeat names why a heartbeat of h at now that extended nothing was
// refused: authorize's error (401, 403, 409 or 410), or a stale lease
// when the row changed between the two statements.
func refusedBeat(db *gorm.DB, h Holder, now time.Time) error {
	if _, err := authorize(db, h, now, false); err != nil {
		return err
	}
	return ErrStaleLease
}

// withGrant completes e with its lease's grant as the rollout's row has
// it (at, expiry), or, for a lease granted by a version that did not keep
// the grant on the row (both nil), from the lease history.
func withGrant(db *gorm.DB, rolloutID string, e Extension, at, expiry *time.Time) (Extension, error) {
	if at != nil && expiry != nil {
		e.GrantedAt, e.GrantedExpiry = at.UTC(), expiry.UTC()
		return e, nil
	}
	var l Lease
	if err := db.Where("rollout_id = ? AND epoch = ?", rolloutID, e.Epoch).Take(&l).Error; err != nil {
		return Extension{}, err
	}
	e.GrantedAt, e.GrantedExpiry = l.GrantedAt.UTC(), l.ExpiresAt.UTC()
	return e, nil
}

// Expiry outcomes of ExpireLease.
const (
	// ExpiryExtended: a heartbeat landed; the lease now expires later.
	ExpiryExtended = "extended"
	// ExpiryRequeued: the lease was revoked and the rollout re-queued.
	ExpiryRequeued = "requeued"
	// ExpiryExhausted: the lease was revoked and no attempt remains.
	ExpiryExhausted = "exhausted"
	// ExpiryOutput: the output was accepted under this lease.
	ExpiryOutput = "output"
	// ExpiryStale: the epoch is not current (nothing to do).
	ExpiryStale = "stale"
)

// ExpiryResult is what ExpireLease found or did.
type ExpiryResult struct {
	Outcome   string    `json:"outcome"`
	ExpiresAt time.Time `json:"expires_at"`
}

// ExpireLease is called by the workflow when its lease timer fires. It
// revokes lease epoch only if it is still current and unexpired in no
// heartbeat's view (lease_expires_at <= now): then the rollout returns to
// the queue, or, when the leases that reached an agent (Attempts) reached
// max_attempts, stays off it. Idempotent
// per (rollout, epoch): a retry after a lost answer returns the same
// outcome.
func ExpireLease(ctx context.Context, db *gorm.DB, id string, epoch int64, heartbeats int64, now time.Time) (ExpiryResult, error) {
	now = dbTime(now)
	var out ExpiryResult
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		q := tx.Where("id = ?", id)
		if tx.Dialector.Name() == "postgres" {
			q = q.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		var r Rollout
		if err := q.Take(&r).Error; err != nil {
			return err
		}
		var l Lease
		if err := tx.Where("rollout_id = ? AND epoch = ?", id, epoch).Take(&l).Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		exhausted := r.Attempts() >= int64(r.MaxAttempts)
		switch {
		case l.EndReason != nil && *l.EndReason == "expired" && exhausted:
			out = ExpiryResult{Outcome: ExpiryExhausted}
		case l.EndReason != nil && *l.EndReason == "expired":
			out = ExpiryResult{Outcome: ExpiryRequeued}
		case r.LeaseEpoch != epoch:
			out = ExpiryResult{Outcome: ExpiryStale}
		case r.OutputAt != nil:
			out = ExpiryResult{Outcome: ExpiryOutput}
		case r.Status != StatusLeased:
			out = ExpiryResult{Outcome: ExpiryStale}
		case r.LeaseExpiresAt != nil && r.LeaseExpiresAt.After(now):
			out = ExpiryResult{Outcome: ExpiryExtended, ExpiresAt: *r.LeaseExpiresAt}
		default:
			status := StatusQueued
			out = ExpiryResult{Outcome: ExpiryRequeued}
			if exhausted {
				status, out.Outcome = StatusLeased, ExpiryExhausted // Finalize ends it as excluded: capacity
			}
			if err := tx.Model(&Rollout{}).Where("id = ? AND lease_epoch = ?", id, epoch).
				Updates(map[string]any{"status": status, "lease_token_hash": "", "api_key_hash": "", "llm_token_hash": "",
					"lease_expires_at": nil, "updated_at": now}).Error; err != nil {
				return err
			}
			if err := tx.Model(&Lease{}).Where("rollout_id = ? AND epoch = ?", id, epoch).
				Updates(map[string]any{"expires_at": derefTime(r.LeaseExpiresAt, now)}).Error; err != nil {
				return err
			}
			return endLease(tx, id, epoch, "expired", now, max(heartbeats, r.LeaseHeartbeats))
		}
		return nil
	})
	return out, err
}

func derefTime(t *time.Time, def time.Time) time.Time {
	if t == nil {
		return def
	}
	return *t
}
