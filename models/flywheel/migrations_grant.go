package flywheel

import (
	"time"

	"gorm.io/gorm"
)

// migrateGrantColumns keeps each rollout's current grant (when its lease
// was granted, and until when) on the rollout's row, so a heartbeat
// returns it from the row it updates instead of joining the lease
// history: on PostgreSQL that join was about a third of the heartbeat
// statement's execution time. Leases held now copy theirs from the
// history (only they can be heartbeated; a row of an ended lease is not
// rewritten, and a heartbeat finding no grant on its row reads the
// history anyway).
func migrateGrantColumns(tx *gorm.DB) error {
	type rollout struct {
		LeaseGrantedAt     *time.Time
		LeaseGrantedExpiry *time.Time
	}
	m := tx.Table("flywheel_rollouts").Migrator()
	for _, field := range []string{"LeaseGrantedAt", "LeaseGrantedExpiry"} {
		if err := m.AddColumn(&rollout{}, field); err != nil {
			return err
		}
	}
	return tx.Exec(`UPDATE flywheel_rollouts SET
		lease_granted_at = (SELECT l.granted_at FROM flywheel_leases l
			WHERE l.rollout_id = flywheel_rollouts.id AND l.epoch = flywheel_rollouts.lease_epoch),
		lease_granted_expiry = (SELECT l.expires_at FROM flywheel_leases l
			WHERE l.rollout_id = flywheel_rollouts.id AND l.epoch = flywheel_rollouts.lease_epoch)
		WHERE status = 'leased'`).Error
}
