package flywheel

import (
	"time"

	"gorm.io/gorm"
)

// migrateNotices adds the outbox of workflow notices: a grant or an
// accepted output is written here in the same statement (or transaction)
// that decides it, and deleted once the rollout's workflow was told. The
// due_at index serves the reconciler's scan for notices nobody delivered.
func migrateNotices(tx *gorm.DB) error {
	type notice struct {
		RolloutID string `gorm:"primaryKey;size:40"`
		Epoch     int64  `gorm:"primaryKey"`
		Kind      string `gorm:"primaryKey;size:16"`
		ExpiresAt *time.Time
		DueAt     time.Time `gorm:"not null;index:idx_flywheel_notices_due"`
		CreatedAt time.Time `gorm:"not null"`
	}
	return tx.Table("flywheel_notices").Migrator().CreateTable(&notice{})
}

// migrateClaimIndex serves the claim's ORDER BY created_at, id LIMIT n
// straight from an index (status, created_at, id), so a claim reads only
// the rows it leases (and those it skips) instead of sorting every queued
// row, whatever the planner's statistics say right after a bulk enqueue.
// It replaces the (status, created_at) index it extends, so a lease
// grant (which changes status) still updates as many indexes as before.
// On PostgreSQL the rollout table's pages keep a fifth free, so the
// updates that touch no indexed column (heartbeats, outputs) stay on their
// page as heap-only tuples: no index entries, less WAL per heartbeat.
func migrateClaimIndex(tx *gorm.DB) error {
	stmts := []string{
		"CREATE INDEX idx_flywheel_rollouts_claim ON flywheel_rollouts (status, created_at, id)",
		"DROP INDEX idx_flywheel_rollouts_queue",
	}
	if tx.Dialector.Name() == "postgres" {
		stmts = append(stmts, "ALTER TABLE flywheel_rollouts SET (fillfactor = 80)")
	}
	for _, stmt := range stmts {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
