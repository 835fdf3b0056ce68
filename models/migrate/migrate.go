// Package migrate runs versioned schema migrations on PostgreSQL and SQLite.
//
// Each migration has a sortable ID (date + sequence + name) and an Up
// function that works through GORM's migrator on a snapshot of the models as
// they were at that version, so the same list runs on both databases.
// Applied IDs are recorded in schema_migrations; a migration runs once, in
// its own transaction, and PostgreSQL runs are serialized by an advisory lock
// so an api and a worker starting together do not race.
package migrate

import (
	"fmt"
	"sort"
	"time"

	"gorm.io/gorm"
)

// Migration is one versioned, forward-only schema change.
type Migration struct {
	// ID orders migrations; use "YYYYMMDDNN_domain_what".
	ID string
	// Up applies the change inside a transaction.
	Up func(tx *gorm.DB) error
}

// appliedMigration is a row of schema_migrations.
type appliedMigration struct {
	ID        string `gorm:"primaryKey;size:128"`
	AppliedAt time.Time
}

func (appliedMigration) TableName() string { return "schema_migrations" }

// advisoryLockKey is an arbitrary constant shared by every Gatehouse process.
const advisoryLockKey = 7_233_080_001

// Run applies every migration of list not yet recorded, in ID order, and
// returns the IDs it applied.
func Run(db *gorm.DB, list []Migration) ([]string, error) {
	sorted, err := ordered(list)
	if err != nil {
		return nil, err
	}
	if db.Dialector.Name() == "postgres" {
		conn, err := db.DB()
		if err != nil {
			return nil, err
		}
		// A dedicated connection holds the session-level lock.
		c, err := conn.Conn(db.Statement.Context)
		if err != nil {
			return nil, err
		}
		defer func() { _ = c.Close() }() // returns the connection to the pool after the unlock below
		if _, err := c.ExecContext(db.Statement.Context, "SELECT pg_advisory_lock($1)", advisoryLockKey); err != nil {
			return nil, fmt.Errorf("migrate: advisory lock: %w", err)
		}
		defer c.ExecContext(db.Statement.Context, "SELECT pg_advisory_unlock($1)", advisoryLockKey) //nolint:errcheck
	}
	if err := db.AutoMigrate(&appliedMigration{}); err != nil {
		return nil, fmt.Errorf("migrate: schema_migrations: %w", err)
	}
	var done []appliedMigration
	if err := db.Find(&done).Error; err != nil {
		return nil, err
	}
	applied := make(map[string]bool, len(done))
	for _, d := range done {
		applied[d.ID] = true
	}
	var ran []string
	for _, m := range sorted {
		if applied[m.ID] {
			continue
		}
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := m.Up(tx); err != nil {
				return err
			}
			return tx.Create(&appliedMigration{ID: m.ID, AppliedAt: time.Now().UTC()}).Error
		})
		if err != nil {
			return ran, fmt.Errorf("migrate: %s: %w", m.ID, err)
		}
		ran = append(ran, m.ID)
	}
	return ran, nil
}

// Pending returns the IDs of list not yet applied to db.
func Pending(db *gorm.DB, list []Migration) ([]string, error) {
	sorted, err := ordered(list)
	if err != nil {
		return nil, err
	}
	applied := map[string]bool{}
	if db.Migrator().HasTable(&appliedMigration{}) {
		var done []appliedMigration
		if err := db.Find(&done).Error; err != nil {
			return nil, err
		}
		for _, d := range done {
			applied[d.ID] = true
		}
	}
	var pending []string
	for _, m := range sorted {
		if !applied[m.ID] {
			pending = append(pending, m.ID)
		}
	}
	return pending, nil
}

// ordered sorts a copy of list by ID and refuses duplicate or empty IDs.
func ordered(list []Migration) ([]Migration, error) {
	sorted := append([]Migration(nil), list...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	for i, m := range sorted {
		if m.ID == "" || m.Up == nil {
			return nil, fmt.Errorf("migrate: migration %d has no ID or Up", i)
		}
		if i > 0 && sorted[i-1].ID == m.ID {
			return nil, fmt.Errorf("migrate: duplicate migration ID %q", m.ID)
		}
	}
	return sorted, nil
}
