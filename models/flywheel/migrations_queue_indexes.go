package flywheel

import "gorm.io/gorm"

// queueIndexStatements turn the rollouts' queue indexes on PostgreSQL into
// partial ones: the claim index (created_at, id) and the owner index
// (owner, created_at, id) hold queued rollouts only, and the enqueue key's
// unique index only rollouts that have a key. A claim's update changes the
// status, so PostgreSQL cannot keep it on the page as a heap-only tuple
// and writes the new row version into every index whose predicate it
// meets: four entries per leased rollout before (primary key, enqueue
// key, claim, owner, though nothing but the status changed), the primary
// key's alone after. An output or an expiry writes fewer too, and the
// claim index no longer carries the dead entries of every rollout ever
// leased. Listing rollouts of a status other than queued reads the table,
// as listing all of them already did.
var queueIndexStatements = []string{
	"CREATE INDEX idx_flywheel_rollouts_queued ON flywheel_rollouts (created_at, id) WHERE status = '" + StatusQueued + "'",
	"CREATE INDEX idx_flywheel_rollouts_owner_queued ON flywheel_rollouts (owner, created_at, id) WHERE status = '" + StatusQueued + "'",
	"CREATE UNIQUE INDEX idx_flywheel_rollouts_enqueue_key_set ON flywheel_rollouts (enqueue_key) WHERE enqueue_key IS NOT NULL",
	"DROP INDEX idx_flywheel_rollouts_claim",
	"DROP INDEX idx_flywheel_rollouts_owner_queue",
	"DROP INDEX idx_flywheel_rollouts_enqueue_key",
	// Named for the release two back; nothing of the previous release
	// calls it, and its pick would find no index to walk.
	"DROP FUNCTION IF EXISTS flywheel_claimable(text, timestamptz, bigint, text[], text)",
}

// migrateQueueIndexes swaps the queue indexes for partial ones
// (queueIndexStatements) and re-creates the claim functions of this
// release and the one before with the queued status written literally, so
// their plans can use the partial indexes: a claim planned with a
// parameter for the status could not, and would read the table. SQLite
// keeps its indexes; its claim binds the status as a parameter.
func migrateQueueIndexes(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	for _, stmt := range queueIndexStatements {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return createClaimFunctions(tx, append(claimFunctions("", false), claimFunctions("_located", true)...))
}
