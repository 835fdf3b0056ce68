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

func TestGrantNoticeWaitsUntil_TheLaterOfItsFirstDueTimeAndTheMaxDeferral(t *testing.T) {
	now := time.Unix(1_800_000_000, 0).UTC()
	for _, c := range []struct {
		name  string
		lease time.Duration
		until time.Duration // after now; 0: sent at once
	}{
		{"a 15s lease: heartbeats defer it up to a minute", 15 * time.Second, fw.GrantNoticeMaxDeferral},
		{"a 5 minute lease: its first due time, 75s before expiry", 5 * time.Minute, 225 * time.Second},
		{"a 5s lease: sent at once", 5 * time.Second, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			until := fw.GrantNoticeWaitsUntil(now, now.Add(c.lease))
			if want := now.Add(c.until); (c.until == 0) != until.IsZero() || (c.until != 0 && !until.Equal(want)) {
				t.Fatalf("waits until %v, want %s after the grant", until, c.until)
			}
		})
	}
}

// TestNotices_AGrantNoticeCarriesTheCurrentExpiryAndAnOutputSupersedesIt:
// the claim writes a grant notice due shortly before expiry; a heartbeat
// before then defers it to shortly before the expiry it set (capped at
// GrantNoticeMaxDeferral after the grant), and once sent it carries the
// expiry heartbeats moved the lease to; an accepted output replaces a
// grant notice still waiting with its own.
func TestNotices_AGrantNoticeCarriesTheCurrentExpiryAndAnOutputSupersedesIt(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		enqueue(t, db, now.Add(time.Hour), 3)
		enqueue(t, db, now.Add(time.Hour), 3)
		gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 2, time.Minute, now)
		if err != nil || len(gs) != 2 {
			t.Fatalf("claim: %d %v", len(gs), err)
		}
		if due, _, err := fw.DueNotices(ctx, db, now.Add(44*time.Second), time.Second, 10); err != nil || len(due) != 0 {
			t.Fatalf("due before a quarter of the lease before expiry: %v %v", due, err)
		}
		ext, err := fw.ExtendLease(ctx, db, holder(gs[0]), now.Add(30*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := fw.AcceptOutput(ctx, db, holder(gs[1]), fw.Output{BodySHA256: "b", FinalText: "done"}, now.Add(31*time.Second)); err != nil {
			t.Fatal(err)
		}
		if due, _, err := fw.DueNotices(ctx, db, now.Add(46*time.Second), time.Hour, 10); err != nil || len(due) != 0 {
			t.Fatalf("due at 46s: %+v %v, want none (the heartbeat deferred the grant, the output is within its grace)", due, err)
		}
		due, full, err := fw.DueNotices(ctx, db, now.Add(31*time.Second+fw.OutputNoticeGrace), time.Hour, 10)
		if err != nil || full || len(due) != 1 || due[0].RolloutID != gs[1].Rollout.ID || due[0].Kind != fw.NoticeOutput {
			t.Fatalf("due past the output's grace: %+v full %v %v, want the second's output alone", due, full, err)
		}
		if due, _, err := fw.DueNotices(ctx, db, now.Add(59*time.Second), time.Hour, 10); err != nil || len(due) != 0 {
			t.Fatalf("due at 59s: %+v %v, want nothing before GrantNoticeMaxDeferral", due, err)
		}
		due, _, err = fw.DueNotices(ctx, db, now.Add(61*time.Second), time.Hour, 10)
		if err != nil || len(due) != 1 || due[0].RolloutID != gs[0].Rollout.ID || due[0].Kind != fw.NoticeGrant {
			t.Fatalf("due at 61s: %+v %v, want the first's grant", due, err)
		}
		if due[0].ExpiresAt == nil || !due[0].ExpiresAt.Equal(ext.ExpiresAt) {
			t.Fatalf("the grant notice carries %v, want the heartbeat's %s", due[0].ExpiresAt, ext.ExpiresAt)
		}
	})
}

// TestNotices_HeartbeatsDeferAGrantNoticeUntilTheLeaseIsAboutToLapse: a
// 15s lease heartbeated every 5s never has its grant notice sent while
// the heartbeats keep coming (each pass of the reconciler only moves it
// to shortly before the new expiry); once they stop, the notice goes a
// quarter of the lease before the last expiry, carrying it.
func TestNotices_HeartbeatsDeferAGrantNoticeUntilTheLeaseIsAboutToLapse(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		enqueue(t, db, now.Add(time.Hour), 3)
		gs, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 1, 15*time.Second, now)
		if err != nil || len(gs) != 1 {
			t.Fatalf("claim: %d %v", len(gs), err)
		}
		var last fw.Extension
		for at := 5 * time.Second; at <= 20*time.Second; at += 5 * time.Second {
			if last, err = fw.ExtendLease(ctx, db, holder(gs[0]), now.Add(at)); err != nil {
				t.Fatal(err)
			}
			due, _, err := fw.DueNotices(ctx, db, now.Add(at+3*time.Second), time.Second, 10)
			if err != nil || len(due) != 0 {
				t.Fatalf("%s after the grant, heartbeating: %+v %v, want no notice", at+3*time.Second, due, err)
			}
		}
		if due, _, err := fw.DueNotices(ctx, db, now.Add(31*time.Second), time.Second, 10); err != nil || len(due) != 0 {
			t.Fatalf("31s: %+v %v, want none before 35s - 3.75s", due, err)
		}
		due, _, err := fw.DueNotices(ctx, db, now.Add(31300*time.Millisecond), time.Second, 10)
		if err != nil || len(due) != 1 || due[0].ExpiresAt == nil || !due[0].ExpiresAt.Equal(last.ExpiresAt) {
			t.Fatalf("31.3s: %+v %v, want the grant carrying the last heartbeat's expiry %s", due, err, last.ExpiresAt)
		}
	})
}

// TestDueNotices_SaysWhenItsBatchWasFull: a reconciler that took a full
// batch knows to take another at once.
func TestDueNotices_SaysWhenItsBatchWasFull(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		for range 3 {
			enqueue(t, db, now.Add(time.Hour), 3)
		}
		if _, err := fw.Claim(ctx, db, fw.Claimant{CredentialID: "c", AllProjects: true}, 3, 15*time.Second, now); err != nil {
			t.Fatal(err)
		}
		at := now.Add(12 * time.Second)
		if due, full, err := fw.DueNotices(ctx, db, at, time.Minute, 2); err != nil || len(due) != 2 || !full {
			t.Fatalf("first batch: %d full %v %v, want 2 and full", len(due), full, err)
		}
		if due, full, err := fw.DueNotices(ctx, db, at, time.Minute, 2); err != nil || len(due) != 1 || full {
			t.Fatalf("second batch: %d full %v %v, want the last one and not full", len(due), full, err)
		}
	})
}
