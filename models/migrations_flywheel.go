package models

import (
	"github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/migrate"
)

// flywheelMigrations are the flywheel domain's migrations.
func flywheelMigrations() []migrate.Migration {
	return flywheel.Migrations()
}
