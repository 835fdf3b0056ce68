package flywheel

import (
	"strings"

	"gorm.io/gorm"
)

// A rollout api key and an LLM gateway token carry a locator: the id of
// their rollout after a dot (rk_<64 hex>.ro_<24 hex>). The part before the
// dot is the secret, and only its hash is stored (Hash ignores the
// locator). A lookup by key or token (keyError, ResolveGateway) goes to
// the rollout's few lease rows by primary key instead of through an
// index on the hash, which a claim had to update at a random page per
// lease, twice. A forged locator gains nothing: the hash must still match
// a lease of the rollout it names. Secrets minted before locators
// (leases with located_secrets false) are found through partial indexes
// that hold those leases alone.
const locatorSep = "."

// located is secret with rolloutID's locator appended.
func located(secret, rolloutID string) string { return secret + locatorSep + rolloutID }

// splitLocator is a presented secret's secret part and the rollout id its
// locator names ("" for a secret without one).
func splitLocator(presented string) (secret, rolloutID string) {
	secret, rolloutID, _ = strings.Cut(presented, locatorSep)
	return secret, rolloutID
}

// leasesOfSecret narrows a query of flywheel_leases to the rows the
// presented secret can belong to: its locator's rollout, or for a secret
// minted without one, the leases granted before locators (the partial
// indexes' predicate, written out so SQLite's planner matches it).
func leasesOfSecret(q *gorm.DB, presented string) *gorm.DB {
	if _, rolloutID := splitLocator(presented); rolloutID != "" {
		return q.Where("rollout_id = ?", rolloutID)
	}
	return q.Where("located_secrets = false")
}
