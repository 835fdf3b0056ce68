package research

import (
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// Migrations returns the research tables' migrations. The first creates the
// tables from snapshot copies of the models as of that version.
func Migrations() []migrate.Migration {
	return []migrate.Migration{
		{ID: "2026112930_research_core", Up: func(tx *gorm.DB) error {
			for _, m := range snapshotV1() {
				if err := tx.Migrator().CreateTable(m); err != nil {
					return err
				}
			}
			return nil
		}},
		// Sorted by ID with every other domain's, so it runs after the
		// reflection, storage, sandbox and commit tables.
		FinalStateMigration(),
		SandboxHostQueueMigration(),
		ReviewBindingMigration(),
		ProjectHumanReviewsMigration(),
		SandboxInspectTokenMigration(),
		StorageUploadKeyMigration(),
	}
}
