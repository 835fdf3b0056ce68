package flywheel

import "gorm.io/gorm"

// migrateLocatedSecrets lets leases be found by their secrets' locators
// (locator.go) instead of by hash: it marks the leases granted from now on
// (located_secrets), replaces the lease history's two indexes on the api
// key and LLM token hashes with partial ones that hold only the leases
// granted before (whose secrets carry no locator and may still be in
// use), and adds the claim functions that mark the leases they grant
// (flywheel_claim_located, flywheel_claim_listed_located). The previous
// two stay unchanged for api replicas of the previous release, which mint
// secrets without locators, during a rolling upgrade. A claim of 16 updated both full indexes at a random page per
// lease; that was 40% of a claim's CPU on SQLite (BenchmarkClaim_SQLite).
// Those replicas' lookups by key or token still find every lease, only
// without an index, until they are replaced.
func migrateLocatedSecrets(tx *gorm.DB) error {
	for _, stmt := range []string{
		"ALTER TABLE flywheel_leases ADD COLUMN located_secrets boolean NOT NULL DEFAULT false",
		"CREATE INDEX idx_flywheel_leases_legacy_api_key ON flywheel_leases (api_key_hash) WHERE located_secrets = false",
		"CREATE INDEX idx_flywheel_leases_legacy_llm_token ON flywheel_leases (llm_token_hash) WHERE located_secrets = false",
		"DROP INDEX idx_flywheel_leases_api_key",
		"DROP INDEX idx_flywheel_leases_llm_token_hash",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return createClaimFunctions(tx, claimFunctions("_located", true))
}
