package flywheel

import (
	"time"

	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
)

// Prefixes of the secrets minted per lease, so a leaked value says what it is.
const (
	// RolloutIDPrefix starts every rollout id.
	RolloutIDPrefix = "ro_"
	// APIKeyPrefix starts a rollout api_key (Bearer for heartbeat, output, gateway).
	APIKeyPrefix = "rk_"
	// LeaseTokenPrefix starts a lease (fencing) token.
	LeaseTokenPrefix = "lt_"
	// LLMTokenPrefix starts the unguessable segment of a rollout's llm_url.
	LLMTokenPrefix = "lg_"
)

// NewRolloutID mints a rollout id before anything runs.
func NewRolloutID() string { return RolloutIDPrefix + randomHex(12) }

// NewCallID mints a gateway call id (the call's idempotency key).
func NewCallID() string { return "gc_" + randomHex(16) }

func newSecret(prefix string) string { return prefix + randomHex(32) }

// Hash is the stored form of a per-lease secret.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// sameHash compares two stored hashes in constant time.
func sameHash(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// dbTime is how a time is stored: UTC at microsecond precision (what
// PostgreSQL keeps), so values read back compare equal to values written.
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
