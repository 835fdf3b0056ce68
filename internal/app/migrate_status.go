package app

import (
	"context"
	"io"
	"sort"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models"
)

// MigrationState is one migration of this build and whether the database
// at GATEHOUSE_DATABASE_URL has it.
type MigrationState struct {
	ID      string `json:"id"`
	Applied bool   `json:"applied"`
}

// MigrationStatus lists every migration of this build, in the order they
// apply, with whether it is applied; it changes nothing.
func MigrationStatus(ctx context.Context, cfg config.Config) ([]MigrationState, error) {
	s, err := base(ctx, cfg, io.Discard)
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.close() }() // read only: a close error loses nothing
	pending, err := models.PendingMigrations(s.db)
	if err != nil {
		return nil, err
	}
	isPending := make(map[string]bool, len(pending))
	for _, id := range pending {
		isPending[id] = true
	}
	var out []MigrationState
	for _, m := range models.Migrations() {
		out = append(out, MigrationState{ID: m.ID, Applied: !isPending[m.ID]})
	}
	// IDs order migrations (models/migrate applies them sorted).
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
