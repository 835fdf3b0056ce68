package flywheel

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"
)

// A claim on PostgreSQL writes no entry into the rollouts' queue indexes:
// they hold queued rollouts only (migrateQueueIndexes), so a leased row
// version belongs in none of them. With the full indexes of before, 1,000
// leases grew the claim index from 88 to 200 kB and the owner index from
// 48 to 80 kB, though of what a lease changes only its status is in
// either.
func TestClaim_OnPostgresWritesNothingIntoTheQueueIndexes(t *testing.T) {
	t.Parallel()
	db := freshPostgresSchema(t)
	var before map[string]int64
	leaseAll(t, db, 1000, func() { before = rolloutIndexSizes(t, db) })
	after := rolloutIndexSizes(t, db)
	if len(after) != 4 {
		t.Fatalf("flywheel_rollouts has indexes %v, want the primary key and three queue indexes", after)
	}
	for name, size := range after {
		if name != "flywheel_rollouts_pkey" && size > before[name] {
			t.Errorf("index %s grew from %d to %d bytes while 1,000 rollouts were leased; a leased row version belongs in no queue index", name, before[name], size)
		}
	}
}

// rolloutIndexSizes is each index of flywheel_rollouts by name, with its
// size in bytes.
func rolloutIndexSizes(t *testing.T, db *gorm.DB) map[string]int64 {
	t.Helper()
	var rows []struct {
		Name string
		Size int64
	}
	if err := db.Raw(`SELECT c.relname AS name, pg_relation_size(c.oid) AS size FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'flywheel_rollouts'::regclass`).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Name] = r.Size
	}
	return out
}

// A database with queued, leased and keyed rollouts keeps them through
// migrateQueueIndexes: afterwards the queued one is claimed, in order,
// and an enqueue under a key already used still stores nothing and
// answers the rollout of that key.
func TestMigrateQueueIndexes_KeepsTheQueueAndItsEnqueueKeys(t *testing.T) {
	t.Parallel()
	db := freshPostgresSchema(t)
	m := migrateUpTo(t, db, "2026120606_flywheel_queue_indexes")
	ctx, now := context.Background(), time.Now()
	key := "enqueue-key-1"
	first, _, err := Enqueue(ctx, db, NewRollout{ID: NewRolloutID(), EnqueueKey: &key, TurnInput: "keyed", DeadlineAt: now.Add(time.Hour), MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := Enqueue(ctx, db, NewRollout{ID: NewRolloutID(), TurnInput: "plain", DeadlineAt: now.Add(time.Hour), MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	who := Claimant{CredentialID: "c1", AllProjects: true}
	if gs, err := Claim(ctx, db, who, 1, time.Minute, now); err != nil || len(gs) != 1 || gs[0].Rollout.ID != first.ID {
		t.Fatalf("claim before the migration: %v %v", gs, err)
	}
	if err := m.Up(db); err != nil {
		t.Fatalf("%s: %v", m.ID, err)
	}
	migrateRest(t, db, m.ID)
	gs, err := Claim(ctx, db, who, 16, time.Minute, now)
	if err != nil || len(gs) != 1 || gs[0].Rollout.ID != second.ID {
		t.Fatalf("claim after the migration: %v %v, want only %s", gs, err, second.ID)
	}
	again, created, err := Enqueue(ctx, db, NewRollout{ID: NewRolloutID(), EnqueueKey: &key, TurnInput: "again", DeadlineAt: now.Add(time.Hour), MaxAttempts: 3})
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("enqueue under a used key: %s created=%v %v, want %s not created", again.ID, created, err, first.ID)
	}
}
