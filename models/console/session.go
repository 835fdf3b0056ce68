// Package console holds the operator console's records: the server-side
// sessions an operator opens by signing in with an operator token.
//
// A session id is 32 random bytes handed to the browser once, in a cookie;
// only its SHA-256 is stored, so a read of the table cannot be replayed as a
// cookie. Each session carries its own CSRF token (the synchronizer token
// every console form echoes) and an absolute expiry. A session ends when it
// expires, when the operator signs out, or when the operator credential it
// was opened with is revoked.
package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/platform"
)

// idPrefix marks a console session id, so a leaked value is recognisable.
const idPrefix = "cs_"

// Session is a signed-in operator's console session.
type Session struct {
	// IDHash is the SHA-256 (hex) of the session id in the cookie.
	IDHash string `gorm:"primaryKey;size:64"`
	// CredentialID is the operator credential the session was opened with.
	CredentialID string `gorm:"size:32;not null;index"`
	// OperatorName is the credential's name, shown in the console.
	OperatorName string `gorm:"size:200;not null"`
	// CSRFToken is the synchronizer token every form of this session echoes.
	CSRFToken string `gorm:"size:64;not null"`
	// CreatedAt is when the operator signed in.
	CreatedAt time.Time
	// ExpiresAt is the absolute end of the session.
	ExpiresAt time.Time `gorm:"not null;index"`
}

// TableName pins the table name.
func (Session) TableName() string { return "console_sessions" }

// ErrNoSession is returned for a session id that is unknown, malformed,
// expired, signed out, or whose operator credential was revoked.
var ErrNoSession = errors.New("no console session")

// Opened is a new session with the id to put in the cookie (shown once).
type Opened struct {
	Session Session
	ID      string
}

// Open starts a session for an authenticated operator. Any principal that
// is not an operator is refused: an agent key never opens the console.
func Open(ctx context.Context, db *gorm.DB, p platform.Principal, ttl time.Duration, now time.Time) (Opened, error) {
	if p.Role != platform.RoleOperator {
		return Opened{}, fmt.Errorf("console sessions are for operator credentials, not %s", p.Role)
	}
	if ttl <= 0 {
		return Opened{}, fmt.Errorf("session lifetime must be positive, got %s", ttl)
	}
	id := idPrefix + randomHex(32)
	s := Session{
		IDHash:       hashID(id),
		CredentialID: p.CredentialID,
		OperatorName: p.Name,
		CSRFToken:    randomHex(32),
		CreatedAt:    now.UTC(),
		ExpiresAt:    now.UTC().Add(ttl),
	}
	if err := db.WithContext(ctx).Create(&s).Error; err != nil {
		return Opened{}, fmt.Errorf("open console session: %w", err)
	}
	return Opened{Session: s, ID: id}, nil
}

// Lookup resolves a session id from a cookie. It answers ErrNoSession unless
// the session exists, has not expired and its operator credential is still
// active.
func Lookup(ctx context.Context, db *gorm.DB, id string, now time.Time) (Session, error) {
	if !strings.HasPrefix(id, idPrefix) || len(id) != len(idPrefix)+64 {
		return Session{}, ErrNoSession
	}
	var s Session
	err := db.WithContext(ctx).
		Table("console_sessions").
		Select("console_sessions.*").
		Joins("JOIN credentials ON credentials.id = console_sessions.credential_id").
		Where("console_sessions.id_hash = ? AND console_sessions.expires_at > ?", hashID(id), now.UTC()).
		Where("credentials.revoked_at IS NULL AND credentials.role = ?", platform.RoleOperator).
		Take(&s).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, err
	}
	return s, nil
}

// Close ends a session (sign-out). Closing an unknown session is a no-op.
func Close(ctx context.Context, db *gorm.DB, id string) error {
	return db.WithContext(ctx).Where("id_hash = ?", hashID(id)).Delete(&Session{}).Error
}

// DeleteExpired removes sessions past their expiry and reports how many.
func DeleteExpired(ctx context.Context, db *gorm.DB, now time.Time) (int64, error) {
	res := db.WithContext(ctx).Where("expires_at <= ?", now.UTC()).Delete(&Session{})
	return res.RowsAffected, res.Error
}

// hashID is the stored form of a session id.
func hashID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// randomHex returns n random bytes, hex encoded.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}
