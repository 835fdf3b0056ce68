package flywheel

import "gorm.io/gorm"

// migrateDropRolloutSecretIndexes drops the rollouts' indexes on the api
// key and LLM token hashes. Every lookup by a key or a token goes to the
// lease history (keyError, ResolveGateway), and the row is reached by its
// primary key; the two indexes only cost writes: every grant, revocation
// and output changes both columns, so each such update inserted two index
// entries, and every heartbeat opened and locked both indexes. Leases held
// now whose history row predates the history's own LLM token copy it from
// their rollout first, so their llm_url keeps resolving.
func migrateDropRolloutSecretIndexes(tx *gorm.DB) error {
	for _, stmt := range []string{
		`UPDATE flywheel_leases SET llm_token_hash = (SELECT r.llm_token_hash FROM flywheel_rollouts r
			WHERE r.id = flywheel_leases.rollout_id AND r.lease_epoch = flywheel_leases.epoch)
			WHERE llm_token_hash = '' AND EXISTS (SELECT 1 FROM flywheel_rollouts r
				WHERE r.id = flywheel_leases.rollout_id AND r.lease_epoch = flywheel_leases.epoch AND r.llm_token_hash <> '')`,
		"DROP INDEX idx_flywheel_rollouts_api_key",
		"DROP INDEX idx_flywheel_rollouts_llm_token",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
