package flywheel

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"
)

// TestClaim_OnPostgresNeverScansTheRolloutsWhateverPlanTheSessionCached:
// a session whose claims were planned while the table held a few dozen
// rollouts (statistics taken then, as before a burst of enqueues), then
// 20,000 more enqueued at once. Claims on that session run the statement
// prepared once per connection, whose cached plan was made from those
// statistics; each must still reach its rows by the claim index and the
// primary key, never by reading the whole table (a plan that joined the
// update through a sequential scan of flywheel_rollouts read every row on
// every claim: 6,900 claims/s where the index walk leases 13,000).
func TestClaim_OnPostgresNeverScansTheRolloutsWhateverPlanTheSessionCached(t *testing.T) {
	t.Parallel()
	for name, who := range map[string]Claimant{
		"all projects":  {CredentialID: "c1", AllProjects: true},
		"listed owners": {CredentialID: "c1"}, // its own and the unrestricted
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			claimsOnAStalePlan(t, who)
		})
	}
}

// claimsOnAStalePlan is the test above for one claimant.
func claimsOnAStalePlan(t *testing.T, who Claimant) {
	db := freshPostgresSchema(t)
	oneSession(t, db)
	statisticsAfterLeasing(t, db, 32)
	ctx := context.Background()
	// Enough claims for PostgreSQL to settle on a plan for the session
	// (it tries five custom plans before it may cache a generic one).
	queueAtOnce(t, db, 160)
	for range 10 {
		if gs, err := Claim(ctx, db, who, 16, time.Minute, time.Now()); err != nil || len(gs) != 16 {
			t.Fatalf("claim: %d granted, %v", len(gs), err)
		}
	}
	rows := queueAtOnce(t, db, 20000)
	before := rolloutScans(t, db)
	for i := range 8 {
		gs, err := Claim(ctx, db, who, 16, time.Minute, time.Now())
		if err != nil || len(gs) != 16 {
			t.Fatalf("claim: %d granted, %v", len(gs), err)
		}
		if i == 0 && gs[0].Rollout.ID != rows[0].ID {
			t.Fatalf("claim leased %s first, want the oldest queued %s", gs[0].Rollout.ID, rows[0].ID)
		}
	}
	if after := rolloutScans(t, db); after != before {
		t.Errorf("8 claims on a session planned with stale statistics read flywheel_rollouts whole %d times; want none (the claim index and the primary key only)", after-before)
	}
}

// rolloutScans is how many sequential scans of flywheel_rollouts the
// server has counted, this session's own included.
func rolloutScans(t *testing.T, db *gorm.DB) int64 {
	t.Helper()
	if err := db.Exec("SELECT pg_stat_force_next_flush()").Error; err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.Raw("SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'flywheel_rollouts'::regclass").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}
