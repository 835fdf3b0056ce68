package app

import (
	"context"
	"io"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models"
	"github.com/gatehouse/gatehouse/models/platform"
)

// MintedKey is what `gatehouse keys create` prints.
type MintedKey struct {
	ID        string `json:"id"`
	Role      string `json:"role"`
	Name      string `json:"name"`
	Plaintext string `json:"plaintext"`
}

// MintKey mints a credential directly in the configured database.
func MintKey(ctx context.Context, cfg config.Config, role, name string, projects []string, all bool) (MintedKey, error) {
	s, err := base(ctx, cfg, io.Discard)
	if err != nil {
		return MintedKey{}, err
	}
	defer func() { _ = s.close() }() // the key is minted; a close error must not hide its plaintext
	if err := models.Migrate(s.db, s.log); err != nil {
		return MintedKey{}, err
	}
	m, err := platform.Mint(ctx, s.db, platform.MintRequest{Role: platform.Role(role), Name: name, Projects: projects, AllProjects: all})
	if err != nil {
		return MintedKey{}, err
	}
	return MintedKey{ID: m.Credential.ID, Role: string(m.Credential.Role), Name: m.Credential.Name, Plaintext: m.Plaintext}, nil
}

// ListKeys lists credentials without plaintext.
func ListKeys(ctx context.Context, cfg config.Config) ([]platform.Credential, error) {
	s, err := base(ctx, cfg, io.Discard)
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.close() }() // read only: a close error loses nothing
	var creds []platform.Credential
	err = s.db.WithContext(ctx).Order("created_at, id").Find(&creds).Error
	for i := range creds {
		creds[i].Hash = ""
	}
	return creds, err
}

// RevokeKey revokes a credential by id.
func RevokeKey(ctx context.Context, cfg config.Config, id string) error {
	s, err := base(ctx, cfg, io.Discard)
	if err != nil {
		return err
	}
	defer func() { _ = s.close() }() // the revocation is committed; a close error changes nothing
	return platform.Revoke(ctx, s.db, id)
}
