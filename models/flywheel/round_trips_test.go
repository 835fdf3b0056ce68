package flywheel_test

import (
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// countStatements counts every statement GORM sends on db from now on.
func countStatements(t *testing.T, db *gorm.DB) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	count := func(*gorm.DB) { n.Add(1) }
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("test:count_create", count),
		cb.Query().After("gorm:query").Register("test:count_query", count),
		cb.Update().After("gorm:update").Register("test:count_update", count),
		cb.Delete().After("gorm:delete").Register("test:count_delete", count),
		cb.Row().After("gorm:row").Register("test:count_row", count),
		cb.Raw().After("gorm:raw").Register("test:count_raw", count),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return &n
}

// TestHotPaths_OnPostgresEachRequestIsOneStatement: a claim of 16, a
// heartbeat and an output each cost one statement (one round trip, no
// transaction) on PostgreSQL, grants' lease history and outbox notices
// included.
func TestHotPaths_OnPostgresEachRequestIsOneStatement(t *testing.T) {
	db := modelstest.Postgres(t)
	if db == nil {
		t.Skip("needs GATEHOUSE_TEST_DATABASE_URL")
	}
	now := time.Now()
	for range 16 {
		enqueue(t, db, now.Add(time.Hour), 3)
	}
	n := countStatements(t, db)
	gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 16, time.Minute, now)
	if err != nil || len(gs) != 16 {
		t.Fatalf("claim: %d %v", len(gs), err)
	}
	if got := n.Swap(0); got != 1 {
		t.Fatalf("a claim of 16 took %d statements, want 1", got)
	}
	if ns, _ := fw.PendingNotices(ctx, db); len(ns) != 16 {
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
