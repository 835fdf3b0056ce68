package flylab

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// SessionSnapshot is the last committed state of a page session, stored by
// the session workflow at every commit. The running workflow is the
// authority; once it is gone (closed and purged after the namespace's
// retention, or terminated) this row is what reads answer from and what a
// restarted workflow continues from. State is the workflow's SessionState
// as JSON; this package does not interpret it.
type SessionSnapshot struct {
	SessionID string `gorm:"primaryKey;size:40"`
	Revision  int    `gorm:"not null"`
	State     string `gorm:"type:text;not null"`
	UpdatedAt time.Time
}

// TableName names the table.
func (SessionSnapshot) TableName() string { return "flylab_session_snapshots" }

// SaveSnapshot stores a session's state at revision unless a later
// revision, or this very state, is stored: a retried or late write never
// moves the stored state back (upsertSnapshot).
func SaveSnapshot(ctx context.Context, db *gorm.DB, sessionID string, revision int, state []byte) error {
	row := SessionSnapshot{SessionID: sessionID, Revision: revision, State: string(state), UpdatedAt: time.Now().UTC()}
	return upsertSnapshot(db.WithContext(ctx), row)
}

// SaveSnapshotWithResult stores the tool result of the commit (once, by
// key, as PutToolResult does) and the commit's snapshot in one
// transaction: one commit to disk, and never one without the other. On
// PostgreSQL the transaction is one statement (snapshot_postgres.go).
func SaveSnapshotWithResult(ctx context.Context, db *gorm.DB, sessionID string, revision int, state []byte, result ToolResult) error {
	now := time.Now().UTC()
	result.CreatedAt = now
	row := SessionSnapshot{SessionID: sessionID, Revision: revision, State: string(state), UpdatedAt: now}
	if db.Dialector.Name() == "postgres" {
		return saveSnapshotWithResultOneStatement(db.WithContext(ctx), row, result)
	}
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := CreateOnce(ctx, tx, &result); err != nil {
			return err
		}
		return upsertSnapshot(tx, row)
	})
}

// upsertSnapshot writes row unless a later revision is stored, or the
// same revision with the same state. A different state at the stored
// revision replaces it: the stored one was written by a workflow task
// that was lost with its worker (its commit is in no history), and row
// is the commit that happened. A retried write of one commit carries the
// same state, so it changes nothing.
func upsertSnapshot(db *gorm.DB, row SessionSnapshot) error {
	return db.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "session_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"revision", "state", "updated_at"}),
		Where:     clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: replacesStoredSnapshot}}},
	}).Create(&row).Error
}

// replacesStoredSnapshot is the condition under which a snapshot write
// replaces the stored one.
const replacesStoredSnapshot = "flylab_session_snapshots.revision < excluded.revision OR " +
	"(flylab_session_snapshots.revision = excluded.revision AND flylab_session_snapshots.state <> excluded.state)"

// LoadSnapshot returns a session's stored snapshot, or ErrNotFound when
// the session never committed a change.
func LoadSnapshot(ctx context.Context, db *gorm.DB, sessionID string) (SessionSnapshot, error) {
	var s SessionSnapshot
	err := first(ctx, db, &s, "session_id = ?", sessionID)
	return s, err
}
