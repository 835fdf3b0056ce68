package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
)

// randomToken returns 32 random bytes, hex encoded.
func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// tokensEqual compares a presented token with the expected one in constant
// time; an empty expected token never matches.
func tokensEqual(presented, expected string) bool {
	if expected == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(presented), []byte(expected)) == 1
}
