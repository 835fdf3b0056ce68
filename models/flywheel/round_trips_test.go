package flywheel_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
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

// countedPostgres is a fresh migrated PostgreSQL schema opened with
// Gatehouse's GORM settings over connections that count their statements;
// nil without GATEHOUSE_TEST_DATABASE_URL.
func countedPostgres(t *testing.T) (*gorm.DB, *atomic.Int64) {
	t.Helper()
	url := modelstest.SchemaURL(t)
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
	for _, m := range fw.Migrations() {
		if err := m.Up(db); err != nil {
			t.Fatal(err)
		}
	}
	return db, &counter.n
}

// TestHotPaths_OnPostgresEachRequestIsOneStatement: a claim of 16, a
// heartbeat and an output each cost one statement (one round trip, no
// transaction) on PostgreSQL, grants' lease history and outbox notices
// included.
func TestHotPaths_OnPostgresEachRequestIsOneStatement(t *testing.T) {
	db, n := countedPostgres(t)
	if db == nil {
		t.Skip("needs GATEHOUSE_TEST_DATABASE_URL")
	}
	now := time.Now()
	for range 16 {
		enqueue(t, db, now.Add(time.Hour), 3)
	}
	n.Store(0)
	gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 16, time.Minute, now)
	if err != nil || len(gs) != 16 {
		t.Fatalf("claim: %d %v", len(gs), err)
	}
	if got := n.Swap(0); got != 1 {
		t.Fatalf("a claim of 16 took %d statements, want 1", got)
	}
	if ns, _ := fw.PendingNotices(ctx, db); len(ns) != 16 { // read outside the count
		t.Fatalf("%d grant notices, want 16", len(ns))
	}
	n.Store(0)
	if _, err := fw.ExtendLease(ctx, db, holder(gs[0]), now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := n.Swap(0); got != 1 {
		t.Fatalf("a heartbeat took %d statements, want 1", got)
	}
	if _, _, err := fw.AcceptOutput(ctx, db, holder(gs[1]), fw.Output{BodySHA256: "b", FinalText: "done"}, now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := n.Swap(0); got != 1 {
		t.Fatalf("an output took %d statements, want 1", got)
	}
}
