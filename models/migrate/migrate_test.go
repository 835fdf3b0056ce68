package migrate_test

import (
	"errors"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models"
	"github.com/gatehouse/gatehouse/models/migrate"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestRun_AppliesOnceInOrderAndRollsBackFailures(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		var order []string
		mk := func(id string, err error) migrate.Migration {
			return migrate.Migration{ID: id, Up: func(tx *gorm.DB) error {
				order = append(order, id)
				if err != nil {
					return err
				}
				return tx.Exec("CREATE TABLE m_" + id + " (x integer)").Error
			}}
		}
		list := []migrate.Migration{mk("b", nil), mk("a", nil)}
		ran, err := migrate.Run(db, list)
		if err != nil || len(ran) != 2 || order[0] != "a" {
			t.Fatalf("ran %v order %v err %v", ran, order, err)
		}
		ran, err = migrate.Run(db, list)
		if err != nil || len(ran) != 0 {
			t.Fatalf("second run must apply nothing, ran %v err %v", ran, err)
		}
		boom := errors.New("boom")
		_, err = migrate.Run(db, append(list, mk("c", boom)))
		if !errors.Is(err, boom) {
			t.Fatalf("want boom, got %v", err)
		}
		pending, _ := migrate.Pending(db, append(list, mk("c", nil)))
		if len(pending) != 1 || pending[0] != "c" {
			t.Fatalf("failed migration must stay pending, got %v", pending)
		}
	})
}

func TestRun_RefusesDuplicateIDs(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	up := func(*gorm.DB) error { return nil }
	if _, err := migrate.Run(db, []migrate.Migration{{ID: "x", Up: up}, {ID: "x", Up: up}}); err == nil {
		t.Fatal("want a duplicate-ID error")
	}
}

func TestModels_AllMigrationsApplied(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		pending, err := models.PendingMigrations(db)
		if err != nil || len(pending) != 0 {
			t.Fatalf("pending %v err %v", pending, err)
		}
	})
}
