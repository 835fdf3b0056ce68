// Package modelstest opens migrated test databases: a fresh SQLite file and,
// when GATEHOUSE_TEST_DATABASE_URL is set, a fresh schema in the real
// PostgreSQL, so every model test runs on both. Under CI (CI set) a missing
// or unreachable PostgreSQL fails the test instead of skipping it.
package modelstest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models"
)

// DB is one database under test.
type DB struct {
	// Name is "sqlite" or "postgres".
	Name string
	// DB is migrated and empty.
	DB *gorm.DB
}

// Each runs fn as a subtest on every available database.
func Each(t *testing.T, fn func(t *testing.T, db *gorm.DB)) {
	t.Helper()
	for _, d := range Open(t) {
		t.Run(d.Name, func(t *testing.T) { fn(t, d.DB) })
	}
}

// Open returns SQLite and, when configured, PostgreSQL, both migrated.
func Open(t testing.TB) []DB {
	t.Helper()
	out := []DB{{Name: "sqlite", DB: SQLite(t)}}
	if pg := Postgres(t); pg != nil {
		out = append(out, DB{Name: "postgres", DB: pg})
	}
	return out
}

// SQLite returns a migrated database in a temporary file.
func SQLite(t testing.TB) *gorm.DB {
	t.Helper()
	db, err := models.Open("sqlite:" + filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeDB(db) })
	migrateOrFail(t, db)
	return db
}

// Postgres returns a migrated database in a fresh schema of the server at
// GATEHOUSE_TEST_DATABASE_URL, dropped after the test; nil when unset
// outside CI.
func Postgres(t testing.TB) *gorm.DB {
	t.Helper()
	base := os.Getenv("GATEHOUSE_TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("GATEHOUSE_TEST_DATABASE_URL is not set; CI must provide PostgreSQL")
		}
		return nil
	}
	admin, err := models.Open(base)
	if err != nil {
		t.Fatalf("postgres at GATEHOUSE_TEST_DATABASE_URL: %v", err)
	}
	if err := admin.Exec("SELECT 1").Error; err != nil {
		t.Fatalf("postgres at GATEHOUSE_TEST_DATABASE_URL unreachable: %v", err)
	}
	schema := "t_" + randomHex(8)
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		closeDB(admin)
	})
	db, err := models.Open(withSearchPath(t, base, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeDB(db) })
	migrateOrFail(t, db)
	return db
}

// SchemaURL returns a URL of a fresh migrated schema (for tests that start
// whole processes), or "" when PostgreSQL is not configured outside CI.
func SchemaURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("GATEHOUSE_TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("GATEHOUSE_TEST_DATABASE_URL is not set; CI must provide PostgreSQL")
		}
		return ""
	}
	admin, err := models.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	schema := "t_" + randomHex(8)
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		t.Fatalf("postgres unreachable: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		closeDB(admin)
	})
	return withSearchPath(t, base, schema)
}

func withSearchPath(t testing.TB, base, schema string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func migrateOrFail(t testing.TB, db *gorm.DB) {
	t.Helper()
	if err := models.Migrate(db, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatalf("migrate: %v", err)
	}
}

func closeDB(db *gorm.DB) {
	if sqlDB, err := db.DB(); err == nil {
		_ = sqlDB.Close()
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprint("rand:", err))
	}
	return hex.EncodeToString(b)
}
