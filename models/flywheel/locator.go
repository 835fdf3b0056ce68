package flywheel

import (
	"strings"
	"time"

	"gorm.io/gorm"
)

// A rollout api key and an LLM gateway token end with their lease's
// locator after a dot (rk_<64 hex>.ll_<24 hex>): an id minted with the
// lease, kept on its history row, that begins with the millisecond it was
// minted. A lookup by key or token (keyError, ResolveGateway) reads the
// lease rows of that locator through an index that grows at its end,
// instead of through an index on the secret's hash, which a claim had to
// update at a random page per lease, twice. The hash stored is the hash
// of the whole secret, locator included, as before locators, so api
// replicas of the previous release still check these secrets during a
// rolling upgrade. A forged locator gains nothing: the hash must still
// match a lease with that locator. Secrets minted before locators (leases
// with an empty locator) are found through partial indexes that hold those
// leases alone.
const (
	// LocatorPrefix starts a lease locator.
	LocatorPrefix = "ll_"
	locatorSep    = "."
)

// newLocator mints a lease locator.
func newLocator() string { return LocatorPrefix + timeOrderedHex(time.Now()) }

// mintSecrets is a fresh set of a lease's secrets: its lease token, and
// its api key and LLM token ending with the lease's locator.
func mintSecrets(locator string) Grant {
	return Grant{LeaseToken: newSecret(LeaseTokenPrefix), APIKey: located(newSecret(APIKeyPrefix), locator),
		LLMToken: located(newSecret(LLMTokenPrefix), locator)}
}

// located is secret with locator appended.
func located(secret, locator string) string { return secret + locatorSep + locator }

// locatorOf is the locator a presented secret ends with ("" for none).
func locatorOf(presented string) string {
	_, locator, _ := strings.Cut(presented, locatorSep)
	return locator
}

// leasesOfSecret narrows a query of flywheel_leases to the rows the
// presented secret can belong to: those of its locator, or for a secret
// minted without one, the leases granted before locators (the partial
// indexes' predicate, written out so SQLite's planner matches it).
func leasesOfSecret(q *gorm.DB, presented string) *gorm.DB {
	if locator := locatorOf(presented); locator != "" {
		return q.Where("locator = ?", locator)
	}
	return q.Where("locator = ''")
}
