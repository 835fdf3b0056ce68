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

// NewRolloutID mints a rollout id before anything runs: the millisecond
// it was minted (48 bits, big-endian) then 48 random bits, in hex. Ids
// minted together sort together, so the rollouts a claim leases (taken
// in enqueue order) sit side by side in every index keyed by rollout id:
// the lease history's and the notices' primary keys take a claim's rows
// on one or two pages instead of one page each, as random ids did.
func NewRolloutID() string { return rolloutIDAt(time.Now()) }

// rolloutIDAt is NewRolloutID minted at t.
func rolloutIDAt(t time.Time) string { return RolloutIDPrefix + timeOrderedHex(t) }

// timeOrderedHex is 24 hex characters: the millisecond of t (48 bits,
// big-endian), then 48 random bits.
func timeOrderedHex(t time.Time) string {
	var b [12]byte
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	if _, err := rand.Read(b[6:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// NewCallID mints a gateway call id (the call's idempotency key).
func NewCallID() string { return "gc_" + randomHex(16) }

func newSecret(prefix string) string { return prefix + randomHex(32) }

// Hash is the stored form of a per-lease secret (locator included).
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	var text [2 * sha256.Size]byte
	hex.Encode(text[:], sum[:])
	return string(text[:])
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
