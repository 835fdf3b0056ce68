package research_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// The central advance's owner lease: a second owner is refused while the
// lease runs and takes over once it expired; only the current owner
// settles, once; a settled advance is answered as settled to anyone.
func TestAdvanceLease_RefusedWhileHeldTakenOverWhenExpiredSettledOnce(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		intent := research.CentralAdvance{ID: "adv_1", ProjectID: "prj_1", ReflectionID: "rfl_1", Revision: 1,
			Expected: "aaa", Target: "bbb", Owner: "worker-a"}
		got, settled, err := research.AcquireAdvance(ctx, db, intent, time.Minute, now)
		if err != nil || settled || got.Status != research.AdvanceIntended || got.Owner != "worker-a" {
			t.Fatalf("first acquire: %+v %v %v", got, settled, err)
		}
		other := intent
		other.Owner = "worker-b"
		if _, _, err := research.AcquireAdvance(ctx, db, other, time.Minute, now.Add(30*time.Second)); !errors.Is(err, research.ErrLeaseHeld) {
			t.Fatalf("a second owner while the lease runs: %v", err)
		}
		if got, _, err := research.AcquireAdvance(ctx, db, intent, time.Minute, now.Add(50*time.Second)); err != nil || got.Owner != "worker-a" {
			t.Fatalf("the owner renews: %+v %v", got, err)
		}
		// worker-a's renewed lease ends at now+110s.
		if _, _, err := research.AcquireAdvance(ctx, db, other, time.Minute, now.Add(100*time.Second)); !errors.Is(err, research.ErrLeaseHeld) {
			t.Fatalf("a second owner before the renewed lease ends: %v", err)
		}
		took, _, err := research.AcquireAdvance(ctx, db, other, time.Minute, now.Add(2*time.Minute))
		if err != nil || took.Owner != "worker-b" {
			t.Fatalf("takeover after expiry: %+v %v", took, err)
		}
		if err := research.SettleAdvance(ctx, db, "adv_1", "worker-a", research.AdvanceBound, "bbb", ""); err != nil {
			t.Fatal(err)
		}
		var row research.CentralAdvance
		if err := db.Take(&row, "id = ?", "adv_1").Error; err != nil || row.Status != research.AdvanceIntended {
			t.Fatalf("the former owner settled it: %+v %v", row, err)
		}
		if err := research.SettleAdvance(ctx, db, "adv_1", "worker-b", research.AdvanceStale, "ccc", "moved"); err != nil {
			t.Fatal(err)
		}
		if err := research.SettleAdvance(ctx, db, "adv_1", "worker-b", research.AdvanceBound, "bbb", ""); err != nil {
			t.Fatal(err)
		}
		if err := db.Take(&row, "id = ?", "adv_1").Error; err != nil || row.Status != research.AdvanceStale || row.Observed != "ccc" {
			t.Fatalf("settled twice or not at all: %+v %v", row, err)
		}
		again, settled, err := research.AcquireAdvance(ctx, db, intent, time.Minute, now.Add(time.Hour))
		if err != nil || !settled || again.Status != research.AdvanceStale {
			t.Fatalf("acquire after settling: %+v %v %v", again, settled, err)
		}
	})
}
