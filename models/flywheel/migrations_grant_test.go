package flywheel

import (
	"testing"
	"time"
)

// TestMigrateGrantColumns_CopiesTheGrantOfHeldLeasesOnly: the rollout
// holding its second lease gets that lease's grant from the history; an
// ended rollout's row is left as it was.
func TestMigrateGrantColumns_CopiesTheGrantOfHeldLeasesOnly(t *testing.T) {
	t.Parallel()
	db := openUnmigrated(t)
	last := migrateUpTo(t, db, "2026120411_flywheel_lease_grant_columns")
	deadline := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	first, second := deadline.Add(-3*time.Hour), deadline.Add(-2*time.Hour)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO flywheel_rollouts (id, status, turn_input, deadline_at, max_attempts, lease_epoch)
			VALUES ('held', 'leased', 'x', ?, 3, 2), ('ended', 'completed', 'x', ?, 3, 1)`, []any{deadline, deadline}},
		{`INSERT INTO flywheel_leases (rollout_id, epoch, api_key_hash, claimed_by, granted_at, expires_at)
			VALUES ('held', 1, 'k1', 'c', ?, ?), ('held', 2, 'k2', 'c', ?, ?), ('ended', 1, 'k3', 'c', ?, ?)`,
			[]any{first, first.Add(time.Minute), second, second.Add(time.Minute), first, first.Add(time.Minute)}},
	} {
		if err := db.Exec(stmt.sql, stmt.args...).Error; err != nil {
			t.Fatal(err)
		}
	}
	if err := last.Up(db); err != nil {
		t.Fatal(err)
	}
	var held, ended Rollout
	if err := db.Take(&held, "id = ?", "held").Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Take(&ended, "id = ?", "ended").Error; err != nil {
		t.Fatal(err)
	}
	if held.LeaseGrantedAt == nil || !held.LeaseGrantedAt.Equal(second) || held.LeaseGrantedExpiry == nil || !held.LeaseGrantedExpiry.Equal(second.Add(time.Minute)) {
		t.Fatalf("the held lease's grant: %v until %v, want %v until %v", held.LeaseGrantedAt, held.LeaseGrantedExpiry, second, second.Add(time.Minute))
	}
	if ended.LeaseGrantedAt != nil || ended.LeaseGrantedExpiry != nil {
		t.Fatalf("an ended rollout's row was rewritten: %v until %v", ended.LeaseGrantedAt, ended.LeaseGrantedExpiry)
	}
}
