package flywheel

import (
	"path/filepath"
	"testing"

	"github.com/libtnb/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// openUnmigrated opens an empty SQLite database of the test's own.
func openUnmigrated(t *testing.T) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(sqlite.Open("file:"+filepath.Join(t.TempDir(), "m.db")), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// migrateUpTo runs every flywheel migration before the one named id and
// returns that one, not yet run.
func migrateUpTo(t *testing.T, db *gorm.DB, id string) migrate.Migration {
	t.Helper()
	for _, m := range Migrations() {
		if m.ID == id {
			return m
		}
		if err := m.Up(db); err != nil {
			t.Fatalf("%s: %v", m.ID, err)
		}
	}
	t.Fatalf("no flywheel migration %s", id)
	return migrate.Migration{}
}

// migrateRest runs every flywheel migration after the one named id.
func migrateRest(t *testing.T, db *gorm.DB, id string) {
	t.Helper()
	after := false
	for _, m := range Migrations() {
		if after {
			if err := m.Up(db); err != nil {
				t.Fatalf("%s: %v", m.ID, err)
			}
		}
		after = after || m.ID == id
	}
	if !after {
		t.Fatalf("no flywheel migration %s", id)
	}
}
