package research

import (
	"errors"
	"fmt"
	"strings"
)

// Bounds of a git object id: abbreviated ids have at least 7 hex digits;
// full ids are 40 (SHA-1) or 64 (SHA-256) digits.
const (
	MinObjectIDLen = 7
	MaxObjectIDLen = 64
	// MaxBranchLen bounds a branch name (the column's size).
	MaxBranchLen = 255
)

// ErrBadObjectID is wrapped by ParseObjectID's refusals.
var ErrBadObjectID = errors.New("not a git object id")

// ErrBadBranch is wrapped by ParseBranch's refusals.
var ErrBadBranch = errors.New("not a valid git branch name")

// ParseObjectID checks a git object id and returns it lowercased. An
// abbreviated id is lowercase hex of 7–64 digits; a full id (40 or 64
// digits) may also come in uppercase.
func ParseObjectID(s string) (string, error) {
	n := len(s)
	if n < MinObjectIDLen || n > MaxObjectIDLen {
		return "", fmt.Errorf("%w: %q has %d characters, want %d–%d hex digits", ErrBadObjectID, clip(s), n, MinObjectIDLen, MaxObjectIDLen)
	}
	full := n == 40 || n == 64
	for i := 0; i < n; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		case full && c >= 'A' && c <= 'F':
		default:
			return "", fmt.Errorf("%w: %q is not lowercase hex (uppercase only in a full 40- or 64-digit id)", ErrBadObjectID, clip(s))
		}
	}
	return strings.ToLower(s), nil
}

// ParseBranch checks a branch name by git's check-ref-format rules and
// returns it without a leading "refs/heads/".
func ParseBranch(name string) (string, error) {
	short := strings.TrimPrefix(name, "refs/heads/")
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %q %s", ErrBadBranch, clip(name), why)
	}
	switch {
	case short == "":
		return bad("is empty")
	case len(short) > MaxBranchLen:
		return bad(fmt.Sprintf("is longer than %d bytes", MaxBranchLen))
	case short == "@":
		return bad("is @")
	case strings.HasPrefix(short, "-"):
		return bad("starts with -")
	case strings.HasPrefix(short, "/") || strings.HasSuffix(short, "/"):
		return bad("starts or ends with /")
	case strings.HasSuffix(short, "."):
		return bad("ends with .")
	case strings.Contains(short, ".."), strings.Contains(short, "//"), strings.Contains(short, "@{"):
		return bad("contains .., // or @{")
	case strings.HasPrefix(short, "refs/"):
		return bad("names a ref outside refs/heads/")
	}
	for _, r := range short {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return bad(fmt.Sprintf("contains %q", r))
		}
	}
	for _, part := range strings.Split(short, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return bad("has a component starting with . or ending with .lock")
		}
	}
	return short, nil
}

// clip keeps echoed input short.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
