package flywheel

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Grant is one lease handed to a claimer, with the plaintext secrets shown
// only here.
type Grant struct {
	// Rollout is the leased rollout: the fields grantColumns names (all a
	// claim answer and its grant notice use), on both dialects.
	Rollout    Rollout
	LeaseToken string
	APIKey     string
	LLMToken   string
	ExpiresAt  time.Time
}

// MaxClaimBatch bounds how many rollouts one claim may lease.
const MaxClaimBatch = 64

// Claim leases up to max queued rollouts whose deadline has not passed and
// that who may take (Claimant.MayTake: its own key's, its projects', and
// for an all-projects key the unrestricted ones), in enqueue order. No
// rollout is ever handed to two claimers: on PostgreSQL the candidate rows
// are locked FOR UPDATE SKIP LOCKED (concurrent claimers take different
// rows without waiting), on SQLite the transaction is serialized (BEGIN
// IMMEDIATE, one connection) and the update is a compare-and-swap on
// status='queued' and the epoch read (claimSQLite). Every lease bumps the
// epoch and gets fresh token, api key and LLM gateway token, and writes
// its lease history row and a grant Notice (the workflow is told off the
// request path). The lease never outlives the deadline.
func Claim(ctx context.Context, db *gorm.DB, who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, error) {
	if max <= 0 {
		return nil, nil
	}
	if max > MaxClaimBatch {
		max = MaxClaimBatch
	}
	now = dbTime(now)
	if db.Dialector.Name() == "postgres" {
		return claimOneStatement(db.WithContext(ctx), who, max, lease, now)
	}
	var grants []Grant
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		grants, err = claimSQLite(tx, who, max, lease, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return grants, nil
}

// RevertGrant returns a just-granted lease that never reached an agent to
// the queue: the epoch stays consumed (fencing epochs only ever grow) but
// the attempt does not. Claims no longer revert a grant when Temporal is
// down (its notice waits in the outbox instead); leases reverted that way
// before still count as undelivered in Attempts.
func RevertGrant(ctx context.Context, db *gorm.DB, id string, epoch int64, now time.Time) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := revertGrantUpdate(tx, id, epoch, now)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		return endLease(tx, id, epoch, "not_delivered", now, 0)
	})
}

// revertGrantUpdate re-queues rollout id if it is still leased at epoch
// with no output, and counts the undelivered lease.
func revertGrantUpdate(tx *gorm.DB, id string, epoch int64, now time.Time) *gorm.DB {
	return tx.Model(&Rollout{}).Where("id = ? AND lease_epoch = ? AND "+rowStatusIs+"? AND output_at IS NULL", id, epoch, StatusLeased).
		Updates(map[string]any{"status": StatusQueued, "lease_token_hash": "", "api_key_hash": "", "llm_token_hash": "",
			"lease_expires_at": nil, "updated_at": now.UTC(), "leases_undelivered": gorm.Expr("leases_undelivered + 1")})
}

// endLease closes a lease history row once; a closed one is left alone.
func endLease(tx *gorm.DB, id string, epoch int64, reason string, now time.Time, heartbeats int64) error {
	return tx.Model(&Lease{}).Where("rollout_id = ? AND epoch = ? AND ended_at IS NULL", id, epoch).
		Updates(map[string]any{"ended_at": now.UTC(), "end_reason": reason, "heartbeats": heartbeats}).Error
}
