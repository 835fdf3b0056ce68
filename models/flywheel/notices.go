package flywheel

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Notice kinds: what a rollout's workflow is still to be told.
const (
	// NoticeGrant: lease Epoch was granted, expiring at ExpiresAt.
	NoticeGrant = "grant"
	// NoticeOutput: the output of lease Epoch was accepted.
	NoticeOutput = "output"
)

// NoticeGrace is how long a new notice is left to the API process that
// wrote it (it tells the workflow at once, off the request path) before
// the reconciler of any process may send it instead.
const NoticeGrace = 5 * time.Second

// MinGrantNoticeLead is the least time before a lease's expiry at which
// its workflow is told of the grant; the lead is a quarter of the lease
// when that is longer.
const MinGrantNoticeLead = 2 * time.Second

// GrantNoticeDue is when the workflow must be told of a lease granted at
// now for lease, expiring at expires: the workflow needs a grant only to
// arm its expiry timer, so the notice waits until shortly before that
// expiry. A rollout whose output lands first never costs a grant signal
// (AcceptOutput drops the grant notice), and a claim burst costs Temporal
// nothing while it lasts. A due time within NoticeGrace of now is
// now+NoticeGrace: the writing process sends it at once (deferred false).
func GrantNoticeDue(now, expires time.Time, lease time.Duration) (due time.Time, deferred bool) {
	due = expires.Add(-grantNoticeLead(lease))
	if floor := now.Add(NoticeGrace); !due.After(floor) {
		return floor, false
	}
	return due, true
}

func grantNoticeLead(lease time.Duration) time.Duration {
	return max(lease/4, MinGrantNoticeLead)
}

// Notice is one entry of the outbox of workflow notices. It is written by
// the statement (or transaction) that decides the grant or accepts the
// output, so the decision and the duty to tell the workflow commit
// together; it is deleted once the workflow was told. The database row of
// the rollout stays the authority: a notice only moves the workflow's
// timers sooner, and a notice that is sent twice or late changes nothing
// (the workflow ignores an epoch it has passed, and its expiry check reads
// the row before it re-queues).
type Notice struct {
	RolloutID string `gorm:"primaryKey;size:40"`
	Epoch     int64  `gorm:"primaryKey"`
	Kind      string `gorm:"primaryKey;size:16"`
	// ExpiresAt is the granted expiry (grants only).
	ExpiresAt *time.Time
	// DueAt is when a reconciler may (re)send it.
	DueAt     time.Time `gorm:"not null;index:idx_flywheel_notices_due"`
	CreatedAt time.Time `gorm:"not null"`
}

// TableName pins the table name.
func (Notice) TableName() string { return "flywheel_notices" }

// NoticeKey names one notice.
type NoticeKey struct {
	RolloutID string
	Epoch     int64
	Kind      string
}

// Key is the notice's key.
func (n Notice) Key() NoticeKey {
	return NoticeKey{RolloutID: n.RolloutID, Epoch: n.Epoch, Kind: n.Kind}
}

// DueNotices takes up to limit notices whose due time passed, oldest
// first, and pushes their due time retry later, so a concurrent
// reconciler (another API process) skips them and a notice this one fails
// to send is retried then. On PostgreSQL the rows are taken FOR UPDATE SKIP
// LOCKED in the same statement that pushes them. A grant notice whose lease
// is still current carries the lease's expiry as it is now (heartbeats may
// have moved it since the grant); its rollout is read by primary key
// alone (rowStatusIs).
func DueNotices(ctx context.Context, db *gorm.DB, now time.Time, retry time.Duration, limit int) ([]Notice, error) {
	now = dbTime(now)
	next := now.Add(retry)
	db = db.WithContext(ctx)
	if db.Dialector.Name() == "postgres" {
		var rows []dueNotice
		err := db.Raw(dueNoticesPostgres,
			map[string]any{"next": next, "now": now, "limit": limit, "leased": StatusLeased}).Find(&rows).Error
		out := make([]Notice, len(rows))
		for i, r := range rows {
			out[i] = r.current()
		}
		return out, err
	}
	var out []Notice
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("due_at <= ?", now).Order("due_at").Limit(limit).Find(&out).Error; err != nil {
			return err
		}
		for i := range out {
			out[i].DueAt = next
			if err := tx.Model(&Notice{}).Where("rollout_id = ? AND epoch = ? AND kind = ?", out[i].RolloutID, out[i].Epoch, out[i].Kind).
				Update("due_at", next).Error; err != nil {
				return err
			}
			var r Rollout
			if err := tx.Where("id = ? AND lease_epoch = ? AND status = ?", out[i].RolloutID, out[i].Epoch, StatusLeased).
				Take(&r).Error; err == nil {
				out[i] = dueNotice{Notice: out[i], CurrentExpiresAt: r.LeaseExpiresAt}.current()
			}
		}
		return nil
	})
	return out, err
}

// dueNoticesPostgres is DueNotices on PostgreSQL in one statement: it
// pushes the due time of up to @limit due notices (skipping those another
// process holds) and returns each with its lease's expiry as the rollout's
// row has it now (rowStatusIs).
const dueNoticesPostgres = `UPDATE flywheel_notices n SET due_at = @next
			FROM (SELECT rollout_id, epoch, kind FROM flywheel_notices WHERE due_at <= @now
				ORDER BY due_at LIMIT @limit FOR UPDATE SKIP LOCKED) d
			WHERE n.rollout_id = d.rollout_id AND n.epoch = d.epoch AND n.kind = d.kind
			RETURNING n.*, (SELECT r.lease_expires_at FROM flywheel_rollouts r
				WHERE r.id = n.rollout_id AND r.lease_epoch = n.epoch AND ` + rowStatusIs + `@leased) AS current_expires_at`

// dueNotice is a notice with its lease's expiry as the row has it now.
type dueNotice struct {
	Notice
	CurrentExpiresAt *time.Time
}

// current is the notice carrying the later of the granted and the current
// expiry, so a deferred grant notice also tells the heartbeats since.
func (d dueNotice) current() Notice {
	n := d.Notice
	if d.CurrentExpiresAt != nil && (n.ExpiresAt == nil || d.CurrentExpiresAt.After(*n.ExpiresAt)) {
		t := d.CurrentExpiresAt.UTC()
		n.ExpiresAt = &t
	}
	return n
}

// DeleteNotices removes notices that were delivered (one statement).
func DeleteNotices(ctx context.Context, db *gorm.DB, keys []NoticeKey) error {
	if len(keys) == 0 {
		return nil
	}
	rows := make([][]any, len(keys))
	for i, k := range keys {
		rows[i] = []any{k.RolloutID, k.Epoch, k.Kind}
	}
	return db.WithContext(ctx).Where("(rollout_id, epoch, kind) IN ?", rows).Delete(&Notice{}).Error
}

// PendingNotices lists every notice not yet delivered (tests, operators).
func PendingNotices(ctx context.Context, db *gorm.DB) ([]Notice, error) {
	var out []Notice
	err := db.WithContext(ctx).Order("created_at, rollout_id").Find(&out).Error
	return out, err
}

// insertNotice writes one notice in tx (SQLite's claim and output paths;
// PostgreSQL's write it inside their single statements). A notice already
// there is left as it is.
func insertNotice(tx *gorm.DB, n Notice) error {
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&n).Error
}
