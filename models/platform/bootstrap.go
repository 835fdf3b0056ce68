package platform

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// MinBareBootstrapLength is the shortest bare (unprefixed) bootstrap
// operator token accepted: 32 characters, half of what the documented
// `openssl rand -hex 32` prints, so a placeholder or a word is refused.
const MinBareBootstrapLength = 32

// BootstrapTokenForm states, for error messages and documentation, which
// values GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN accepts.
const BootstrapTokenForm = "the output of `openssl rand -hex 32` (at least 32 characters of letters, digits, '-' or '_'), " +
	"or an op_ token of at least 16 characters; present it exactly as set: Authorization: Bearer <token>"

// ErrMalformedBootstrapToken is returned for a bootstrap operator token in
// neither accepted form; the api refuses to start with it.
var ErrMalformedBootstrapToken = errors.New("malformed bootstrap operator token")

// BootstrapOperator stores the production bootstrap operator token, so that
// presenting exactly that value authenticates as an operator. It accepts an
// op_ token or a bare random value, since the documented way to make one is
// `openssl rand -hex 32`; storing it again is a no-op.
func BootstrapOperator(ctx context.Context, db *gorm.DB, token string) (Minted, error) {
	req := MintRequest{Role: RoleOperator, Name: "bootstrap operator", Plaintext: token}
	if strings.HasPrefix(token, RoleOperator.Prefix()) {
		if len(token) < 16 {
			return Minted{}, fmt.Errorf("%w: an op_ token of %d characters; must be %s", ErrMalformedBootstrapToken, len(token), BootstrapTokenForm)
		}
		return Mint(ctx, db, req)
	}
	if err := validBareBootstrap(token); err != nil {
		return Minted{}, fmt.Errorf("%w: %v; must be %s", ErrMalformedBootstrapToken, err, BootstrapTokenForm)
	}
	return store(ctx, db, req, token, "")
}

// validBareBootstrap checks a bare bootstrap token's form: long enough and
// made only of characters that survive a shell, a .env file and a header.
func validBareBootstrap(token string) error {
	if len(token) < MinBareBootstrapLength {
		return fmt.Errorf("%d characters, fewer than %d", len(token), MinBareBootstrapLength)
	}
	for _, r := range token {
		if !isTokenChar(r) {
			return fmt.Errorf("character %q is not a letter, digit, '-' or '_'", r)
		}
	}
	if strings.HasPrefix(token, RoleAgent.Prefix()) {
		return errors.New("an mk_ value is an agent key, not an operator token")
	}
	return nil
}

// isTokenChar reports whether r is an ASCII letter, digit, '-' or '_'.
func isTokenChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}
