package flywheel_test

import (
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestGrantNoticeDue_WaitsUntilAQuarterOfTheLeaseBeforeExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0).UTC()
	for _, c := range []struct {
		name     string
		lease    time.Duration
		due      time.Duration // after now
		deferred bool
	}{
		{"a 5 minute lease: 75s before expiry", 5 * time.Minute, 225 * time.Second, true},
		{"a 15s lease: 3.75s before expiry, past the writer's grace", 15 * time.Second, 11250 * time.Millisecond, true},
		{"a 5s lease: at once, by its writer", 5 * time.Second, fw.NoticeGrace, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			due, deferred := fw.GrantNoticeDue(now, now.Add(c.lease), c.lease)
			if !due.Equal(now.Add(c.due)) || deferred != c.deferred {
				t.Fatalf("due %s deferred %v, want %s %v", due.Sub(now), deferred, c.due, c.deferred)
			}
		})
	}
}

// TestNotices_AGrantNoticeCarriesTheCurrentExpiryAndAnOutputSupersedesIt:
// the claim writes a grant notice due shortly before expiry; once due it
// carries the expiry heartbeats moved the lease to; an accepted output
// replaces a grant notice still waiting with its own.
func TestNotices_AGrantNoticeCarriesTheCurrentExpiryAndAnOutputSupersedesIt(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		enqueue(t, db, now.Add(time.Hour), 3)
		enqueue(t, db, now.Add(time.Hour), 3)
		gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 2, time.Minute, now)
		if err != nil || len(gs) != 2 {
			t.Fatalf("claim: %d %v", len(gs), err)
		}
		if due, err := fw.DueNotices(ctx, db, now.Add(44*time.Second), time.Second, 10); err != nil || len(due) != 0 {
			t.Fatalf("due before a quarter of the lease before expiry: %v %v", due, err)
		}
		ext, err := fw.ExtendLease(ctx, db, holder(gs[0]), now.Add(30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := fw.AcceptOutput(ctx, db, holder(gs[1]), fw.Output{BodySHA256: "b", FinalText: "done"}, now.Add(31*time.Second)); err != nil {
			t.Fatal(err)
		}
		due, err := fw.DueNotices(ctx, db, now.Add(46*time.Second), time.Second, 10)
		if err != nil || len(due) != 2 {
			t.Fatalf("due: %+v %v, want the first's grant and the second's output", due, err)
		}
		for _, n := range due {
			switch {
			case n.RolloutID == gs[0].Rollout.ID && n.Kind == fw.NoticeGrant:
				if n.ExpiresAt == nil || !n.ExpiresAt.Equal(ext.ExpiresAt) {
					t.Fatalf("the grant notice carries %v, want the heartbeat's %s", n.ExpiresAt, ext.ExpiresAt)
				}
			case n.RolloutID == gs[1].Rollout.ID && n.Kind == fw.NoticeOutput:
			default:
				t.Fatalf("unexpected notice %+v", n)
			}
		}
	})
}
