package models

import "github.com/gatehouse/gatehouse/models/migrate"

// researchMigrations are the research domain's migrations.
func researchMigrations() []migrate.Migration {
	return nil
}
