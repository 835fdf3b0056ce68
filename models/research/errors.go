package research

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// Error codes, the same as the research tools' stable error codes.
const (
	CodeNotFound  = "not_found"
	CodeConflict  = "conflict"
	CodeExpired   = "expired"
	CodeForbidden = "forbidden"
	CodeInvalid   = "invalid_input"
)

// Error is a typed refusal a caller can act on; nothing was written.
type Error struct {
	Code    string
	Message string
	Field   string
	Details map[string]any
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NewID returns prefix + 24 random hex characters.
func NewID(prefix string) string {
	return prefix + RandomHex(12)
}

// RandomHex returns n random bytes as hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}
