package flywheel_test

import (
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestHoldNotices_MovesOnlyTheNamedNoticesAndNeverEarlier: holding moves
// the named notices due before until to until, leaves a named notice due
// later and every notice not named as they were, and names more keys than
// one statement carries.
func TestHoldNotices_MovesOnlyTheNamedNoticesAndNeverEarlier(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		for range 3 {
			enqueue(t, db, now.Add(time.Hour), 3)
		}
		gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 3, time.Hour, now)
		if err != nil || len(gs) != 3 {
			t.Fatalf("claim: %d %v", len(gs), err)
		}
		key := func(g fw.Grant) fw.NoticeKey {
			return fw.NoticeKey{RolloutID: g.Rollout.ID, Epoch: g.Rollout.LeaseEpoch, Kind: fw.NoticeGrant}
		}
		before := map[string]time.Time{}
		for _, n := range pending(t, db) {
			before[n.RolloutID] = n.DueAt
		}
		until := before[gs[0].Rollout.ID].Add(time.Minute)
		// gs[1]'s notice is made due after until: holding must not bring it earlier.
		if err := db.Model(&fw.Notice{}).Where("rollout_id = ?", gs[1].Rollout.ID).Update("due_at", until.Add(time.Hour)).Error; err != nil {
			t.Fatal(err)
		}
		keys := []fw.NoticeKey{key(gs[0]), key(gs[1])}
		for i := range 1500 { // past one statement's chunk; these match nothing
			keys = append(keys, fw.NoticeKey{RolloutID: fw.NewRolloutID(), Epoch: int64(i), Kind: fw.NoticeOutput})
		}
		held, err := fw.HoldNotices(ctx, db, keys, until)
		if err != nil || held != 1 {
			t.Fatalf("held %d notices (%v), want 1", held, err)
		}
		for _, n := range pending(t, db) {
			var want time.Time
			switch n.RolloutID {
			case gs[0].Rollout.ID:
				want = until
			case gs[1].Rollout.ID:
				want = until.Add(time.Hour)
			default:
				want = before[n.RolloutID]
			}
			if n.DueAt.Sub(want).Abs() > time.Millisecond {
				t.Fatalf("notice of %s due %v, want %v", n.RolloutID, n.DueAt, want)
			}
		}
	})
}

func pending(t *testing.T, db *gorm.DB) []fw.Notice {
	t.Helper()
	ns, err := fw.PendingNotices(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}
