// Package platform holds the records every domain shares: agent API keys,
// operator tokens and the projects a key may use.
package platform

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Role says what a credential may do.
type Role string

const (
	// RoleAgent is an agent's API key (mk_…): it calls tools.
	RoleAgent Role = "agent"
	// RoleOperator is an operator token (op_…): approvals, reviews, admin.
	RoleOperator Role = "operator"
)

// Prefix returns the plaintext prefix of a role's credentials.
func (r Role) Prefix() string {
	if r == RoleOperator {
		return "op_"
	}
	return "mk_"
}

// Credential is an API key or operator token. Only the SHA-256 of the
// plaintext is stored; the plaintext is shown once, when minted.
type Credential struct {
	ID          string `gorm:"primaryKey;size:32"`
	Role        Role   `gorm:"size:16;not null;index"`
	Name        string `gorm:"size:200;not null"`
	Hash        string `gorm:"size:64;not null;uniqueIndex"`
	Hint        string `gorm:"size:32;not null"`
	AllProjects bool   `gorm:"not null;default:false"`
	CreatedAt   time.Time
	RevokedAt   *time.Time
}

// TableName pins the table name.
func (Credential) TableName() string { return "credentials" }

// CredentialProject grants a credential the use of one project.
type CredentialProject struct {
	CredentialID string `gorm:"primaryKey;size:32"`
	ProjectID    string `gorm:"primaryKey;size:64"`
}

// TableName pins the table name.
func (CredentialProject) TableName() string { return "credential_projects" }

// ErrInvalidCredential is returned for a credential that is unknown,
// revoked or malformed; callers answer 401 without saying which.
var ErrInvalidCredential = errors.New("invalid credential")

// Minted is a newly created credential with its plaintext, shown once.
type Minted struct {
	Credential Credential
	Plaintext  string
}

// MintRequest says what credential to create.
type MintRequest struct {
	Role        Role
	Name        string
	Projects    []string
	AllProjects bool
	// Plaintext fixes the secret (development credentials); empty means random.
	Plaintext string
}

// Mint creates a credential. With a fixed plaintext that already exists it
// returns the existing record, so a restarted dev stack keeps its keys.
func Mint(ctx context.Context, db *gorm.DB, req MintRequest) (Minted, error) {
	if req.Role != RoleAgent && req.Role != RoleOperator {
		return Minted{}, fmt.Errorf("unknown role %q", req.Role)
	}
	plain := req.Plaintext
	if plain == "" {
		secret := make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return Minted{}, err
		}
		plain = req.Role.Prefix() + hex.EncodeToString(secret)
	}
	if !strings.HasPrefix(plain, req.Role.Prefix()) || len(plain) < 16 {
		return Minted{}, fmt.Errorf("a %s credential must start with %q and be at least 16 characters", req.Role, req.Role.Prefix())
	}
	return store(ctx, db, req, plain, req.Role.Prefix())
}

// store saves the credential whose plaintext is plain, or returns the one
// already stored under its hash. hintPrefix is how much of the plaintext is
// a public prefix: the hint shows it and six characters more.
func store(ctx context.Context, db *gorm.DB, req MintRequest, plain, hintPrefix string) (Minted, error) {
	hash := HashSecret(plain)
	var existing Credential
	err := db.WithContext(ctx).Where("hash = ?", hash).Take(&existing).Error
	if err == nil {
		if existing.Role != req.Role {
			return Minted{}, fmt.Errorf("credential exists with role %s", existing.Role)
		}
		return Minted{Credential: existing, Plaintext: plain}, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return Minted{}, err
	}
	cred := Credential{
		ID:          newID(),
		Role:        req.Role,
		Name:        req.Name,
		Hash:        hash,
		Hint:        plain[:len(hintPrefix)+6] + "…",
		AllProjects: req.AllProjects,
	}
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&cred).Error; err != nil {
			return err
		}
		for _, p := range req.Projects {
			if err := tx.Create(&CredentialProject{CredentialID: cred.ID, ProjectID: p}).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) && req.Plaintext != "" {
		// A concurrent Mint of the same fixed plaintext won the race.
		return store(ctx, db, req, plain, hintPrefix)
	}
	if err != nil {
		return Minted{}, err
	}
	return Minted{Credential: cred, Plaintext: plain}, nil
}

// Principal is an authenticated caller.
type Principal struct {
	CredentialID string
	Role         Role
	Name         string
	AllProjects  bool
	Projects     []string
}

// MayUseProject reports whether the principal may act on project.
func (p Principal) MayUseProject(project string) bool {
	if p.AllProjects || p.Role == RoleOperator {
		return true
	}
	for _, q := range p.Projects {
		if q == project {
			return true
		}
	}
	return false
}

// Authenticate resolves a presented plaintext credential. Minted
// credentials start with mk_ or op_; the one bare form is the bootstrap
// operator token (see BootstrapOperator), so a bare value is looked up only
// if it is long enough to be one.
func Authenticate(ctx context.Context, db *gorm.DB, plaintext string) (Principal, error) {
	prefixed := strings.HasPrefix(plaintext, "mk_") || strings.HasPrefix(plaintext, "op_")
	if !prefixed && validBareBootstrap(plaintext) != nil {
		return Principal{}, ErrInvalidCredential
	}
	hash := HashSecret(plaintext)
	// One round trip: the credential with its project grants, one row per
	// grant (or one row with no grant).
	var rows []struct {
		Credential
		GrantedProject *string
	}
	err := db.WithContext(ctx).Table("credentials AS c").Select("c.*, g.project_id AS granted_project").
		Joins("LEFT JOIN credential_projects AS g ON g.credential_id = c.id").
		Where("c.hash = ? AND c.revoked_at IS NULL", hash).Order("g.project_id").Find(&rows).Error
	if err != nil {
		return Principal{}, err
	}
	if len(rows) == 0 {
		return Principal{}, ErrInvalidCredential
	}
	cred := rows[0].Credential
	// The index lookup found the row; compare again in constant time so the
	// decision itself never depends on how many bytes matched.
	if subtle.ConstantTimeCompare([]byte(cred.Hash), []byte(hash)) != 1 {
		return Principal{}, ErrInvalidCredential
	}
	p := Principal{CredentialID: cred.ID, Role: cred.Role, Name: cred.Name, AllProjects: cred.AllProjects}
	for _, r := range rows {
		if r.GrantedProject != nil {
			p.Projects = append(p.Projects, *r.GrantedProject)
		}
	}
	return p, nil
}

// GrantProject lets a credential use a project; granting twice is a no-op.
func GrantProject(ctx context.Context, db *gorm.DB, credentialID, projectID string) error {
	var n int64
	if err := db.WithContext(ctx).Model(&CredentialProject{}).
		Where("credential_id = ? AND project_id = ?", credentialID, projectID).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	return db.WithContext(ctx).Create(&CredentialProject{CredentialID: credentialID, ProjectID: projectID}).Error
}

// Revoke disables a credential.
func Revoke(ctx context.Context, db *gorm.DB, id string) error {
	now := time.Now().UTC()
	res := db.WithContext(ctx).Model(&Credential{}).Where("id = ? AND revoked_at IS NULL", id).Update("revoked_at", now)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return gorm.ErrRecordNotFound
	}
	return nil
}

// HashSecret is the stored form of a credential or capability plaintext.
func HashSecret(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// newID returns a random 16-byte hex identifier.
func newID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}
