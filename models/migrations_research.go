package models

import (
	"github.com/gatehouse/gatehouse/models/migrate"
	"github.com/gatehouse/gatehouse/models/research"
)

// researchMigrations are the research domain's migrations.
func researchMigrations() []migrate.Migration {
	return append(research.Migrations(), research.ReflectionMigration(), research.StorageFeedMigration(), research.SandboxMigration(),
		research.ExperimentCommitsMigration())
}
