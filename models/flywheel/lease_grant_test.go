package flywheel_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestHeartbeat_ReportsTheLeasesGrant: a heartbeat returns when its lease
// was granted and until when, which is what the workflow was told.
func TestHeartbeat_ReportsTheLeasesGrant(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now().UTC().Truncate(time.Microsecond)
		enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, time.Minute)
		e, err := fw.ExtendLease(ctx, db, holder(g), now.Add(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if !e.GrantedAt.Equal(now) || !e.GrantedExpiry.Equal(now.Add(time.Minute)) || !e.ExpiresAt.Equal(now.Add(70*time.Second)) {
			t.Fatalf("granted %v until %v, extended to %v; want %v, %v, %v",
				e.GrantedAt, e.GrantedExpiry, e.ExpiresAt, now, now.Add(time.Minute), now.Add(70*time.Second))
		}
	})
}

// TestHeartbeat_OfALeaseGrantedWithoutItsGrantOnTheRowReadsTheHistory: a
// lease granted by a version that did not keep the grant on the rollout's
// row (a rolling upgrade) still reports its grant, from the lease history.
func TestHeartbeat_OfALeaseGrantedWithoutItsGrantOnTheRowReadsTheHistory(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now().UTC().Truncate(time.Microsecond)
		enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, time.Minute)
		if err := db.Model(&fw.Rollout{}).Where("id = ?", g.Rollout.ID).
			Updates(map[string]any{"lease_granted_at": nil, "lease_granted_expiry": nil}).Error; err != nil {
			t.Fatal(err)
		}
		e, err := fw.ExtendLease(ctx, db, holder(g), now.Add(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if !e.GrantedAt.Equal(now) || !e.GrantedExpiry.Equal(now.Add(time.Minute)) {
			t.Fatalf("granted %v until %v, want %v until %v", e.GrantedAt, e.GrantedExpiry, now, now.Add(time.Minute))
		}
	})
}

// TestHeartbeat_OnPostgresDoesNotReadTheLeaseHistory: with the lease
// history locked against every reader, a heartbeat still lands at once; a
// heartbeat joining the history would wait for the lock.
func TestHeartbeat_OnPostgresDoesNotReadTheLeaseHistory(t *testing.T) {
	db := modelstest.Postgres(t)
	if db == nil {
		t.Skip("needs GATEHOUSE_TEST_DATABASE_URL")
	}
	now := time.Now()
	enqueue(t, db, now.Add(time.Hour), 3)
	g := claimOne(t, db, now, time.Minute)
	locker := db.Begin()
	defer locker.Rollback()
	if err := locker.Exec("LOCK TABLE flywheel_leases IN ACCESS EXCLUSIVE MODE").Error; err != nil {
		t.Fatal(err)
	}
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := fw.ExtendLease(hctx, db, holder(g), now.Add(time.Second)); err != nil {
		t.Fatalf("a heartbeat with the lease history locked: %v", err)
	}
}
