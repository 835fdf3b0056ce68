package research

import (
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// ReflectionMigration creates the reflection wave tables: waves, their
// consolidation proposals, central advances and the database central refs.
func ReflectionMigration() migrate.Migration {
	return migrate.Migration{ID: "2026112940_research_reflection", Up: func(tx *gorm.DB) error {
		for _, m := range reflectionTablesV2() {
			if err := tx.Migrator().CreateTable(m); err != nil {
				return err
			}
		}
		return nil
	}}
}
