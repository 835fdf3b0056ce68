package flywheel_test

import (
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestHeartbeat_InsideATransaction: a heartbeat given a transaction runs in
// it (through database/sql, not on a connection of its own): it extends
// the lease, it is fenced as on the pool, and a rollback undoes it.
func TestHeartbeat_InsideATransaction(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now().UTC().Truncate(time.Microsecond)
		enqueue(t, db, now.Add(time.Hour), 3)
		g := claimOne(t, db, now, time.Minute)
		errRollback := errors.New("roll back")
		err := db.Transaction(func(tx *gorm.DB) error {
			e, err := fw.ExtendLease(ctx, tx, holder(g), now.Add(10*time.Second))
			if err != nil {
				return err
			}
			if !e.ExpiresAt.Equal(now.Add(70*time.Second)) || !e.GrantedAt.Equal(now) {
				t.Errorf("in a transaction: extended to %v granted %v, want %v and %v", e.ExpiresAt, e.GrantedAt, now.Add(70*time.Second), now)
			}
			forged := holder(g)
			forged.LeaseToken = "lt_forged"
			if _, err := fw.ExtendLease(ctx, tx, forged, now.Add(11*time.Second)); !errors.Is(err, fw.ErrStaleLease) {
				t.Errorf("a forged token in a transaction: %v, want ErrStaleLease", err)
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatalf("transaction: %v", err)
		}
		var r fw.Rollout
		if err := db.Where("id = ?", g.Rollout.ID).Take(&r).Error; err != nil {
			t.Fatal(err)
		}
		if r.LeaseExpiresAt == nil || !r.LeaseExpiresAt.Equal(now.Add(time.Minute)) {
			t.Fatalf("after the rollback the lease expires at %v, want the granted %v", r.LeaseExpiresAt, now.Add(time.Minute))
		}
	})
}
