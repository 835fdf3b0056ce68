package flywheel

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// NewRollout is what the operator enqueues; ID is minted by the caller
// before the row or its workflow exist.
type NewRollout struct {
	ID         string
	EnqueueKey *string
	// Owner says which agent keys may claim it (ValidOwner forms).
	Owner       string
	TurnInput   string
	TaskID      *string
	Metadata    *string
	SourceAgent *string
	SourceTurn  *string
	DeadlineAt  time.Time
	MaxAttempts int
}

// Enqueue stores a queued rollout. With an enqueue key already used it
// stores nothing and returns the existing rollout with created false.
func Enqueue(ctx context.Context, db *gorm.DB, n NewRollout) (Rollout, bool, error) {
	if err := ValidOwner(n.Owner); err != nil {
		return Rollout{}, false, err
	}
	r := Rollout{
		ID: n.ID, EnqueueKey: n.EnqueueKey, Owner: n.Owner, Status: StatusQueued, TurnInput: n.TurnInput, TaskID: n.TaskID,
		Metadata: n.Metadata, SourceAgent: n.SourceAgent, SourceTurn: n.SourceTurn,
		DeadlineAt: dbTime(n.DeadlineAt), MaxAttempts: n.MaxAttempts,
	}
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&r)
	if res.Error != nil {
		return Rollout{}, false, res.Error
	}
	if res.RowsAffected == 1 {
		return r, true, nil
	}
	if n.EnqueueKey == nil {
		return Rollout{}, false, errors.New("rollout id collision")
	}
	var existing Rollout
	if err := db.WithContext(ctx).Where("enqueue_key = ?", *n.EnqueueKey).Take(&existing).Error; err != nil {
		return Rollout{}, false, err
	}
	return existing, false, nil
}

// GetRollout reads one rollout.
func GetRollout(ctx context.Context, db *gorm.DB, id string) (Rollout, error) {
	var r Rollout
	err := db.WithContext(ctx).Where("id = ?", id).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Rollout{}, ErrNotFound
	}
	return r, err
}

// ListRollouts reads rollouts newest first, optionally of one status.
func ListRollouts(ctx context.Context, db *gorm.DB, status string, limit int) ([]Rollout, error) {
	q := db.WithContext(ctx).Order("created_at DESC, id DESC").Limit(limit)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	var out []Rollout
	return out, q.Find(&out).Error
}

// LeaseHistory reads a rollout's leases in epoch order.
func LeaseHistory(ctx context.Context, db *gorm.DB, id string) ([]Lease, error) {
	var out []Lease
	return out, db.WithContext(ctx).Where("rollout_id = ?", id).Order("epoch").Find(&out).Error
}

// CurrentLeaseHistory reads r's leases in epoch order, the current lease,
// while it is open, with the heartbeats and expiry r's own row holds: a
// heartbeat writes only the rollout row, and the lease's row takes its
// figures when the lease ends.
func CurrentLeaseHistory(ctx context.Context, db *gorm.DB, r Rollout) ([]Lease, error) {
	ls, err := LeaseHistory(ctx, db, r.ID)
	for i := range ls {
		if l := &ls[i]; l.Epoch == r.LeaseEpoch && l.EndedAt == nil && r.Status == StatusLeased {
			l.Heartbeats = max(l.Heartbeats, r.LeaseHeartbeats)
			if r.LeaseExpiresAt != nil {
				l.ExpiresAt = *r.LeaseExpiresAt
			}
		}
	}
	return ls, err
}

// GetOutput reads a rollout's accepted output, ErrNotFound if none.
func GetOutput(ctx context.Context, db *gorm.DB, id string) (Output, error) {
	var o Output
	err := db.WithContext(ctx).Where("rollout_id = ?", id).Take(&o).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Output{}, ErrNotFound
	}
	return o, err
}

// Attempts counts the leases that reached an agent: every epoch granted
// except those returned to the queue undelivered.
func (r Rollout) Attempts() int64 { return r.LeaseEpoch - r.LeasesUndelivered }
