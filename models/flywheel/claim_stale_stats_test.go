package flywheel

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestClaim_OnPostgresReadsAFewPagesWhateverTheStatisticsSay: statistics
// taken while the queue was empty, then 20,000 rollouts enqueued at once
// (autovacuum would analyze again only a minute later): an all-projects
// claim of 16 still walks the claim index in order and stops, instead of
// reading every queued row through a bitmap scan and sorting them all
// (which touches each of the table's ~500 heap pages on every claim:
// about 1,000 pages in all, against about 370 with the claim's writes and
// the call of flywheel_claim).
// The claims lease the oldest rollouts, in order.
func TestClaim_OnPostgresReadsAFewPagesWhateverTheStatisticsSay(t *testing.T) {
	t.Parallel()
	db := freshPostgresSchema(t)
	statisticsOfAnEmptyQueue(t, db)
	const queued = 20000
	rows := queueAtOnce(t, db, queued)

	// One session for all three claims; the first pays for its catalog
	// lookups, the last is measured.
	oneSession(t, db)
	var touched int64
	for range 3 {
		touched = explainedClaim(t, db)
	}
	if touched > 500 {
		t.Errorf("a claim of 16 of %d queued touched %d pages; want a walk of the claim index (about 370 with its writes; a bitmap scan of the queue touches about 1,000)", queued, touched)
	}
	var leased []string
	if err := db.Model(&Rollout{}).Where("status = ?", StatusLeased).Order("created_at").Pluck("id", &leased).Error; err != nil {
		t.Fatal(err)
	}
	if len(leased) != 48 {
		t.Fatalf("leased %d rollouts, want 48", len(leased))
	}
	for i, id := range leased {
		if id != rows[i].ID {
			t.Fatalf("leased #%d is %s, want the %dth oldest %s", i, id, i+1, rows[i].ID)
		}
	}
}

// explainedClaim runs an all-projects claim of 16 under EXPLAIN ANALYZE
// and returns how many shared pages it touched; it fails unless 16 were
// leased.
func explainedClaim(t *testing.T, db *gorm.DB) int64 {
	t.Helper()
	_, statement, args := claimStatement(Claimant{CredentialID: "c1", AllProjects: true}, 16, time.Minute, dbTime(time.Now()))
	var plan string
	if err := db.Statement.ConnPool.QueryRowContext(context.Background(),
		"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+statement, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var explained []struct {
		Plan struct {
			Rows int64 `json:"Actual Rows"`
			Hit  int64 `json:"Shared Hit Blocks"`
			Read int64 `json:"Shared Read Blocks"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(plan), &explained); err != nil || len(explained) != 1 {
		t.Fatalf("explain: %v %s", err, plan)
	}
	p := explained[0].Plan
	if p.Rows != 16 {
		t.Fatalf("claimed %d rollouts, want 16", p.Rows)
	}
	t.Logf("touched %d", p.Hit+p.Read)
	return p.Hit + p.Read
}

// oneSession keeps db to one connection, so every statement after runs in
// one PostgreSQL session: its prepared statements and cached plans.
func oneSession(tb testing.TB, db *gorm.DB) {
	tb.Helper()
	conn, err := db.DB()
	if err != nil {
		tb.Fatal(err)
	}
	conn.SetMaxOpenConns(1)
}

// statisticsOfAnEmptyQueue migrates db, takes the rollouts' statistics
// while none is queued, and keeps autovacuum from taking them again.
func statisticsOfAnEmptyQueue(tb testing.TB, db *gorm.DB) {
	tb.Helper()
	statisticsAfterLeasing(tb, db, 0)
}

// statisticsAfterLeasing migrates db, leases n rollouts, takes the
// rollouts' statistics then, and keeps autovacuum from taking them again.
func statisticsAfterLeasing(tb testing.TB, db *gorm.DB, n int) {
	tb.Helper()
	leaseAll(tb, db, n, nil) // migrates
	for _, s := range []string{"ALTER TABLE flywheel_rollouts SET (autovacuum_enabled = false)", "ANALYZE flywheel_rollouts"} {
		if err := db.Exec(s).Error; err != nil {
			tb.Fatal(err)
		}
	}
}

// queueAtOnce stores n queued, unrestricted rollouts in a few statements,
// a millisecond apart in enqueue order, and returns them in that order.
func queueAtOnce(tb testing.TB, db *gorm.DB, n int) []Rollout {
	tb.Helper()
	start := dbTime(time.Now())
	rows := make([]Rollout, n)
	for i := range rows {
		at := start.Add(time.Duration(i) * time.Millisecond)
		rows[i] = Rollout{ID: NewRolloutID(), Status: StatusQueued, TurnInput: "t", DeadlineAt: start.Add(2 * time.Hour),
			MaxAttempts: 3, CreatedAt: at, UpdatedAt: at}
	}
	if err := db.CreateInBatches(rows, 1000).Error; err != nil {
		tb.Fatal(err)
	}
	return rows
}
