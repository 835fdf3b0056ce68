package models

import (
	"github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/migrate"
)

// flylabMigrations are the flylab domain's migrations.
func flylabMigrations() []migrate.Migration {
	return flylab.Migrations()
}
