package flywheel

import (
	"context"
	"database/sql"
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

// OutputNoticeGrace is NoticeGrace for an output's notice. It is longer:
// the notice only lets the workflow close (the output is final in the
// database already), and after a burst of outputs the writing process
// drains its notices at Temporal's pace, for longer than NoticeGrace; a
// reconciler that took them sooner would signal those workflows twice.
const OutputNoticeGrace = 20 * time.Second

// MinGrantNoticeLead is the least time before a lease's expiry at which
// its workflow is told of the grant; the lead is a quarter of the lease
// when that is longer.
const MinGrantNoticeLead = 2 * time.Second

// GrantNoticeMaxDeferral bounds how long heartbeats keep deferring a
// grant's notice (GrantNoticeDueAgain): a lease that is still alive this
// long after its grant is told to its workflow, which then hears of its
// heartbeats once a lease length (api/flywheel's heartbeatSignaller).
const GrantNoticeMaxDeferral = time.Minute

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

// GrantNoticeDueAgain is when a grant notice that fell due is due again
// instead of being sent, for a lease granted at grantedAt for lease and
// now expiring at expires: heartbeats moved the expiry, so the notice
// waits for shortly before the new one, as it did for the first; but no
// later than GrantNoticeMaxDeferral after the grant. A time not after now
// means: send it now.
func GrantNoticeDueAgain(grantedAt, expires time.Time, lease time.Duration) time.Time {
	again, bound := expires.Add(-grantNoticeLead(lease)), grantedAt.Add(GrantNoticeMaxDeferral)
	if bound.Before(again) {
		return bound
	}
	return again
}

// GrantNoticeWaitsUntil is until when the notice of a lease granted at
// grantedAt and expiring then at grantedExpiry keeps waiting in the outbox
// while every heartbeat lands at least a quarter of the lease before the
// expiry it extends (zero: it was sent at once). Until then the notice,
// when sent, carries the expiry of the latest heartbeat.
func GrantNoticeWaitsUntil(grantedAt, grantedExpiry time.Time) time.Time {
	due, deferred := GrantNoticeDue(grantedAt, grantedExpiry, grantedExpiry.Sub(grantedAt))
	if !deferred {
		return time.Time{}
	}
	if bound := grantedAt.Add(GrantNoticeMaxDeferral); bound.After(due) {
		return bound
	}
	return due
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
// first, and returns those to send now, pushing their due time retry
// later, so a concurrent reconciler (another API process) skips them and
// a notice this one fails to send is retried then. A grant notice whose
// lease is still current carries the lease's expiry as it is now; if
// heartbeats moved that expiry, the notice is not returned but waits for
// GrantNoticeDueAgain. full says that limit notices were taken (more may
// be due). On PostgreSQL it is one statement, which takes the rows FOR
// UPDATE SKIP LOCKED and reads each rollout by primary key alone
// (rowStatusIs).
func DueNotices(ctx context.Context, db *gorm.DB, now time.Time, retry time.Duration, limit int) (send []Notice, full bool, err error) {
	now = dbTime(now)
	next := now.Add(retry)
	db = db.WithContext(ctx)
	var rows []dueNotice
	if db.Dialector.Name() == "postgres" {
		err = db.Raw(dueNoticesPostgres, dueNoticesArgs(now, next, limit)).Find(&rows).Error
	} else {
		rows, err = dueNoticesSQLite(db, now, next, limit)
	}
	if err != nil {
		return nil, false, err
	}
	for _, r := range rows {
		if !r.Deferred {
			send = append(send, r.current())
		}
	}
	return send, len(rows) >= limit, nil
}

// dueNoticesArgs are dueNoticesPostgres's parameters.
func dueNoticesArgs(now, next time.Time, limit int) map[string]any {
	return map[string]any{"next": next, "now": now, "limit": limit, "leased": StatusLeased,
		"grant": NoticeGrant, "min_lead": MinGrantNoticeLead.Seconds(), "max_deferral": GrantNoticeMaxDeferral.Seconds()}
}

// grantDeferredAgain tells whether grant notice n of the lease r holds
// now waits again, and until when (GrantNoticeDueAgain).
func grantDeferredAgain(n Notice, r Rollout, now time.Time) (bool, time.Time) {
	if n.Kind != NoticeGrant || r.LeaseGrantedAt == nil || r.LeaseExpiresAt == nil {
		return false, time.Time{}
	}
	lease := time.Duration(r.LeaseSeconds * float64(time.Second))
	again := dbTime(GrantNoticeDueAgain(*r.LeaseGrantedAt, *r.LeaseExpiresAt, lease))
	return again.After(now), again
}

// dueNoticesPostgres is DueNotices on PostgreSQL in one statement: it takes
// up to @limit due notices (skipping those another process holds), reads
// each one's lease as the rollout's row has it now (rowStatusIs; the LIMIT
// keeps the planner from flattening the lookup into a join that scans
// the rollouts), and sets
// the due time of each: GrantNoticeDueAgain for a grant notice whose
// lease heartbeats moved (deferred), @next for the rest.
const dueNoticesPostgres = `WITH d AS (
	SELECT n.rollout_id, n.epoch, n.kind, c.expires_at AS current_expires_at,
		CASE WHEN n.kind = @grant AND c.granted_at IS NOT NULL THEN
			LEAST(c.expires_at - make_interval(secs => GREATEST(c.lease_seconds / 4, @min_lead)),
				c.granted_at + make_interval(secs => @max_deferral)) END AS again
	FROM flywheel_notices n LEFT JOIN LATERAL (
		SELECT lease_expires_at AS expires_at, lease_seconds, lease_granted_at AS granted_at FROM flywheel_rollouts
		WHERE id = n.rollout_id AND lease_epoch = n.epoch AND ` + rowStatusIs + `@leased LIMIT 1) c ON true
	WHERE n.due_at <= @now ORDER BY n.due_at LIMIT @limit FOR UPDATE OF n SKIP LOCKED)
UPDATE flywheel_notices n SET due_at = CASE WHEN d.again > @now THEN d.again ELSE @next END
	FROM d WHERE n.rollout_id = d.rollout_id AND n.epoch = d.epoch AND n.kind = d.kind
	RETURNING n.*, d.current_expires_at, coalesce(d.again > @now, false) AS deferred`

// dueNotice is a notice with its lease's expiry as the row has it now.
type dueNotice struct {
	Notice
	CurrentExpiresAt *time.Time
	// Deferred: a grant notice that waits again (GrantNoticeDueAgain).
	Deferred bool
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
	db = db.WithContext(ctx)
	if db.Dialector.Name() == "postgres" {
		_, err := execOnNoticeKeys(db, "DELETE FROM flywheel_notices WHERE "+noticeKeysPostgres, keys)
		return err
	}
	return db.Where("(rollout_id, epoch, kind) IN ?", keyRows(keys)).Delete(&Notice{}).Error
}

// noticeKeysPostgres names notices by their keys on PostgreSQL, as three
// arrays ($1 to $3, execOnNoticeKeys): the statement is the same for any
// number of keys, where an IN list of rows is a statement of its own for
// each length, planned each time (10 ms of planning for 1,000 keys).
const noticeKeysPostgres = `(rollout_id, epoch, kind) IN (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]))`

// execOnNoticeKeys runs statement, which names notices by
// noticeKeysPostgres, on db's connection with keys as its first three
// parameters and more after them.
func execOnNoticeKeys(db *gorm.DB, statement string, keys []NoticeKey, more ...any) (sql.Result, error) {
	ids, epochs, kinds := make([]string, len(keys)), make([]int64, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		ids[i], epochs[i], kinds[i] = k.RolloutID, k.Epoch, k.Kind
	}
	return db.Statement.ConnPool.ExecContext(db.Statement.Context, statement, append([]any{ids, epochs, kinds}, more...)...)
}

// keyRows are keys as the rows of a "(rollout_id, epoch, kind) IN ?"
// condition (SQLite).
func keyRows(keys []NoticeKey) [][]any {
	rows := make([][]any, len(keys))
	for i, k := range keys {
		rows[i] = []any{k.RolloutID, k.Epoch, k.Kind}
	}
	return rows
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
