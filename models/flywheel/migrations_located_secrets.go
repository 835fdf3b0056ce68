package flywheel

import "gorm.io/gorm"

// migrateLocatedSecrets lets leases be found by the locator their secrets
// carry (locator.go) instead of by hash: it adds the lease history's
// locator column and its index, replaces the two indexes on the api key
// and LLM token hashes with partial ones that hold only the leases
// granted before (an empty locator, whose secrets may still be in use), and
// adds the claim functions that take and store a locator per lease
// (flywheel_claim_located, flywheel_claim_listed_located). A claim of 16
// updated both hash indexes at a random page per lease; that was 40% of a
// claim's CPU on SQLite (BenchmarkClaim_SQLite). The previous claim
// functions stay unchanged for api replicas of the previous release
// during a rolling upgrade; their lookups by key or token still find
// every lease, only without an index, until they are replaced.
func migrateLocatedSecrets(tx *gorm.DB) error {
	for _, stmt := range []string{
		"ALTER TABLE flywheel_leases ADD COLUMN locator varchar(40) NOT NULL DEFAULT ''",
		"CREATE INDEX idx_flywheel_leases_locator ON flywheel_leases (locator)",
		"CREATE INDEX idx_flywheel_leases_legacy_api_key ON flywheel_leases (api_key_hash) WHERE locator = ''",
		"CREATE INDEX idx_flywheel_leases_legacy_llm_token ON flywheel_leases (llm_token_hash) WHERE locator = ''",
		"DROP INDEX idx_flywheel_leases_api_key",
		"DROP INDEX idx_flywheel_leases_llm_token_hash",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return createClaimFunctions(tx, claimFunctions("_located", true))
}
