// Package models opens Gatehouse's database and runs its migrations. The
// records of each domain live in a subpackage with the domain's name
// (models/platform, models/flylab, …); this package knows the full list of
// their migrations.
package models

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/libtnb/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/gatehouse/gatehouse/models/migrate"
	"github.com/gatehouse/gatehouse/models/platform"
	"github.com/gatehouse/gatehouse/models/sqlitedb"
)

// Migrations is every domain's migrations, applied in ID order.
func Migrations() []migrate.Migration {
	var all []migrate.Migration
	all = append(all, platform.Migrations()...)
	all = append(all, flylabMigrations()...)
	all = append(all, flywheelMigrations()...)
	all = append(all, researchMigrations()...)
	all = append(all, consoleMigrations()...)
	all = append(all, compressionMigrations()...)
	return all
}

// Open connects to url: a postgres:// (or postgresql://) URL, or
// "sqlite:<path>" for the embedded dev database.
func Open(url string) (*gorm.DB, error) { return OpenPool(url, DefaultPool) }

// OpenPool is Open with the PostgreSQL connection pool bounded by pool
// (SQLite always keeps one connection).
func OpenPool(url string, pool Pool) (*gorm.DB, error) {
	if err := pool.Check(); err != nil {
		return nil, err
	}
	cfg := &gorm.Config{
		// Every write here is one statement (no associations, no hooks,
		// no batches), atomic on its own; GORM's default transaction
		// around it would add a BEGIN and a COMMIT round trip to each.
		// Writes of several statements use db.Transaction.
		SkipDefaultTransaction: true,
		TranslateError:         true,
		Logger:                 logger.Discard,
		NowFunc:                func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
	}
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := gorm.Open(postgres.Open(url), cfg)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		if err := pool.apply(db); err != nil {
			return nil, err
		}
		return db, nil
	case strings.HasPrefix(url, "sqlite:"):
		return openSQLite(strings.TrimPrefix(url, "sqlite:"), cfg)
	default:
		return nil, fmt.Errorf("database URL must start with postgres://, postgresql:// or sqlite: (got %q)", redactURL(url))
	}
}

// openSQLite opens a SQLite file as sqlitedb sets it up: WAL mode, one
// connection (SQLite allows one writer), checkpoints off the commit path.
func openSQLite(path string, cfg *gorm.Config) (*gorm.DB, error) {
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
	}
	sqlDB, err := sqlitedb.Open(path)
	if err != nil {
		return nil, err
	}
	db, err := gorm.Open(sqlite.New(sqlite.Config{Conn: sqlDB}), cfg)
	if err != nil {
		_ = sqlDB.Close() // the open's error is the one to report
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	return db, nil
}

// Migrate applies every pending migration and logs what it applied.
func Migrate(db *gorm.DB, log *slog.Logger) error {
	ran, err := migrate.Run(db, Migrations())
	for _, id := range ran {
		log.Info("migration applied", "id", id)
	}
	return err
}

// redactURL hides a password in a database URL before it is printed.
func redactURL(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return url
	}
	creds := url[scheme+3 : at]
	if colon := strings.Index(creds, ":"); colon >= 0 {
		return url[:scheme+3] + creds[:colon] + ":***" + url[at:]
	}
	return url
}

// PendingMigrations lists migrations not yet applied.
func PendingMigrations(db *gorm.DB) ([]string, error) {
	return migrate.Pending(db, Migrations())
}
