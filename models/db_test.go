package models

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenSQLite_AppliesDurabilityPragmas(t *testing.T) {
	t.Parallel()
	db, err := Open("sqlite:" + filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	var sync, busy int
	db.Raw("PRAGMA journal_mode").Scan(&mode)
	db.Raw("PRAGMA synchronous").Scan(&sync)
	db.Raw("PRAGMA busy_timeout").Scan(&busy)
	// synchronous: 1 = NORMAL (crash-safe in WAL mode without an fsync per commit).
	if mode != "wal" || sync != 1 || busy != 10000 {
		t.Fatalf("journal_mode=%q synchronous=%d busy_timeout=%d", mode, sync, busy)
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
