package flywheel_test

import (
	"testing"
	"time"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestHotPaths_OnPostgresEachRequestIsOneStatement: a claim of 16, a
// heartbeat and an output each cost one statement (one round trip, no
// transaction) on PostgreSQL, grants' lease history and outbox notices
// included.
func TestHotPaths_OnPostgresEachRequestIsOneStatement(t *testing.T) {
	db, n := modelstest.CountedPostgres(t)
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

// TestClaim_OnSQLiteABatchIsFourStatements: on the dev database a claim
// reads its candidates, leases them, and writes their history rows and
// their notices in one statement each, whatever the batch, and every
// rollout it answers is leased, with its history row and grant notice.
func TestClaim_OnSQLiteABatchIsFourStatements(t *testing.T) {
	db := modelstest.SQLite(t)
	now := time.Now()
	for range 16 {
		enqueue(t, db, now.Add(time.Hour), 3)
	}
	counted, n := countedSQLite(t, db)
	gs, err := fw.Claim(ctx, counted, fw.Claimant{CredentialID: "c", AllProjects: true}, 16, time.Minute, now)
	if err != nil || len(gs) != 16 {
		t.Fatalf("claim: %d %v", len(gs), err)
	}
	if got := n.Swap(0); got != 4 {
		t.Fatalf("a claim of 16 took %d statements, want 4", got)
	}
	if ns, _ := fw.PendingNotices(ctx, db); len(ns) != 16 {
		t.Fatalf("%d grant notices, want 16", len(ns))
	}
	for _, g := range gs {
		r, err := fw.GetRollout(ctx, db, g.Rollout.ID)
		if err != nil || r.Status != fw.StatusLeased || r.LeaseEpoch != 1 || r.APIKeyHash != fw.Hash(g.APIKey) || r.LeaseTokenHash != fw.Hash(g.LeaseToken) {
			t.Fatalf("rollout %s as stored: %+v %v", g.Rollout.ID, r, err)
		}
		if h, err := fw.LeaseHistory(ctx, db, g.Rollout.ID); err != nil || len(h) != 1 || h[0].LLMTokenHash != fw.Hash(g.LLMToken) {
			t.Fatalf("lease history of %s: %+v %v", g.Rollout.ID, h, err)
		}
	}
}
