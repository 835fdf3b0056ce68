package research

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// ZeroSHA is the central ref of a project that never advanced.
const ZeroSHA = "0000000000000000000000000000000000000000"

// CentralRefs is where projects' central refs live: a database record by
// default, a git repository when configured.
type CentralRefs interface {
	// Read returns the project's central sha (ZeroSHA if unset).
	Read(ctx context.Context, projectID string) (string, error)
	// CompareAndSwap moves the ref to target only if it is expected and
	// returns the sha observed afterwards. An error wrapping
	// ErrPermanentAdvance will not get better on retry.
	CompareAndSwap(ctx context.Context, projectID, expected, target string) (string, error)
	// Name says where the refs live, for responses.
	Name(projectID string) string
}

// ErrPermanentAdvance marks an advance that cannot succeed (an unknown commit).
var ErrPermanentAdvance = errors.New("central advance cannot apply")

// NewCentralRefs returns the git-backed refs when gitDir is set, else the
// database-backed ones.
func NewCentralRefs(db *gorm.DB, gitDir string) CentralRefs {
	if gitDir != "" {
		return &GitCentral{Dir: gitDir}
	}
	return &DBCentral{DB: db}
}

// DBCentral keeps central refs as rows of research_central_refs.
type DBCentral struct{ DB *gorm.DB }

// Name implements CentralRefs.
func (c *DBCentral) Name(projectID string) string { return "db:research_central_refs/" + projectID }

// Read implements CentralRefs.
func (c *DBCentral) Read(ctx context.Context, projectID string) (string, error) {
	var r CentralRef
	err := c.DB.WithContext(ctx).Where("project_id = ?", projectID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ZeroSHA, nil
	}
	return r.SHA, err
}

// CompareAndSwap implements CentralRefs with a conditional update (or an
// insert under the primary key for a project's first advance).
func (c *DBCentral) CompareAndSwap(ctx context.Context, projectID, expected, target string) (string, error) {
	expected, target = strings.ToLower(expected), strings.ToLower(target)
	now := time.Now().UTC()
	err := c.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r CentralRef
		err := tx.Where("project_id = ?", projectID).Take(&r).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			if expected != ZeroSHA {
				return nil
			}
			err = tx.Create(&CentralRef{ProjectID: projectID, SHA: target, UpdatedAt: now}).Error
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return nil // someone else moved it first; the read below observes it
			}
			return err
		case err != nil:
			return err
		}
		return tx.Model(&CentralRef{}).Where("project_id = ? AND sha = ?", projectID, expected).
			Updates(map[string]any{"sha": target, "updated_at": now}).Error
	})
	if err != nil {
		return "", err
	}
	return c.Read(ctx, projectID)
}
