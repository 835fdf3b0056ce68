package modelstest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// statementCounter is a pgx tracer counting every statement a connection
// sends (BEGIN and COMMIT included), whether it came through GORM or
// through database/sql directly.
type statementCounter struct{ n atomic.Int64 }

// TraceQueryStart counts one statement.
func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

// TraceQueryEnd does nothing.
func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// CountedPostgres is a fresh migrated PostgreSQL schema opened with
// Gatehouse's GORM settings over connections that count the statements
// they send, for tests of how many round trips a write costs; nil without
// GATEHOUSE_TEST_DATABASE_URL outside CI.
func CountedPostgres(t *testing.T) (*gorm.DB, *atomic.Int64) {
	t.Helper()
	url := SchemaURL(t)
	if url == "" {
		return nil, nil
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	counter := &statementCounter{}
	cfg.Tracer = counter
	sqlDB := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { _ = sqlDB.Close() })
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{SkipDefaultTransaction: true, TranslateError: true, Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	migrateOrFail(t, db)
	return db, &counter.n
}
