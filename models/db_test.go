package models

import (
	"path/filepath"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/sqlitedb"
)

func TestOpenSQLite_AppliesDurabilityPragmas(t *testing.T) {
	t.Parallel()
	db, err := Open("sqlite:" + filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	var sync, busy, checkpoint, foreignKeys int
	db.Raw("PRAGMA journal_mode").Scan(&mode)
	db.Raw("PRAGMA synchronous").Scan(&sync)
	db.Raw("PRAGMA busy_timeout").Scan(&busy)
	db.Raw("PRAGMA wal_autocheckpoint").Scan(&checkpoint)
	db.Raw("PRAGMA foreign_keys").Scan(&foreignKeys)
	// synchronous: 1 = NORMAL (crash-safe in WAL mode without an fsync per commit).
	if mode != "wal" || sync != 1 || busy != 10000 || foreignKeys != 1 {
		t.Fatalf("journal_mode=%q synchronous=%d busy_timeout=%d foreign_keys=%d", mode, sync, busy, foreignKeys)
	}
	// Commits leave checkpoints to sqlitedb's checkpointer, up to the
	// backstop, not SQLite's default of 1,000 pages.
	if checkpoint != sqlitedb.BackstopCheckpointPages {
		t.Fatalf("wal_autocheckpoint=%d, want %d", checkpoint, sqlitedb.BackstopCheckpointPages)
	}
}

func TestOpen_RefusesUnknownSchemesWithoutLeakingPasswords(t *testing.T) {
	t.Parallel()
	_, err := Open("mysql://user:secret@host/db")
	if err == nil {
		t.Fatal("want an error")
	}
	if got := err.Error(); strings.Contains(got, "secret") {
		t.Fatalf("error leaks the password: %s", got)
	}
}

// TestOpen_AOneStatementWriteRunsWithoutATransaction: GORM's default
// transaction would wrap each Create in BEGIN and COMMIT, two more round
// trips on PostgreSQL for a write that is atomic alone.
func TestOpen_AOneStatementWriteRunsWithoutATransaction(t *testing.T) {
	t.Parallel()
	db, err := Open("sqlite:" + filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	type note struct {
		ID   int `gorm:"primaryKey"`
		Text string
	}
	if err := db.AutoMigrate(&note{}); err != nil {
		t.Fatal(err)
	}
	var inTx []bool
	if err := db.Callback().Create().Before("gorm:create").Register("test:in_tx", func(tx *gorm.DB) {
		_, committer := tx.Statement.ConnPool.(gorm.TxCommitter)
		inTx = append(inTx, committer)
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&note{ID: 1, Text: "alone"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Transaction(func(tx *gorm.DB) error { return tx.Create(&note{ID: 2, Text: "in a transaction"}).Error }); err != nil {
		t.Fatal(err)
	}
	if len(inTx) != 2 || inTx[0] || !inTx[1] {
		t.Fatalf("in a transaction: %v, want [false true] (a lone write, then an explicit transaction)", inTx)
	}
}
