package models

import (
	"github.com/gatehouse/gatehouse/models/console"
	"github.com/gatehouse/gatehouse/models/migrate"
)

// consoleMigrations are the operator console's migrations (its sessions).
func consoleMigrations() []migrate.Migration {
	return console.Migrations()
}
