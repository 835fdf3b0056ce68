package flylab_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	fl "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestReadCurrent_PicksTheSessionSessionOfPicksWithItsSnapshot proves the
// one-statement read of a key's current page session agrees with
// fl.SessionOf (the one opened or resumed last), carries that session's own
// snapshot, and is NOT_FOUND for a key without sessions.
func TestReadCurrent_PicksTheSessionSessionOfPicksWithItsSnapshot(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx, now := context.Background(), time.Now().UTC()
		for i, id := range []string{"session_old", "session_new"} {
			at := now.Add(time.Duration(i-2) * time.Hour)
			if err := fl.CreateOnce(ctx, db, &fl.Session{ID: id, OwnerCredentialID: "cred_a", OwnerName: "a", CreatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if err := fl.SaveSnapshot(ctx, db, id, 10+i, []byte(`{"session_id":"`+id+`"}`)); err != nil {
				t.Fatal(err)
			}
		}
		check := func(want string, wantRev int) {
			t.Helper()
			read, err := fl.ReadCurrent(ctx, db, "cred_a", now)
			if err != nil {
				t.Fatal(err)
			}
			of, err := fl.SessionOf(ctx, db, "cred_a")
			if err != nil || of.ID != read.Session.ID || read.Session.ID != want || read.Snapshot == nil || read.Snapshot.Revision != wantRev {
				t.Fatalf("current read %+v, fl.SessionOf %q (%v), want %s at revision %d", read, of.ID, err, want, wantRev)
			}
		}
		check("session_new", 11)
		if err := fl.SelectSession(ctx, db, "session_old", now); err != nil {
			t.Fatal(err)
		}
		check("session_old", 10)
		if _, err := fl.ReadCurrent(ctx, db, "cred_nobody", now); !errors.Is(err, fl.ErrNotFound) {
			t.Fatalf("a key without sessions: %v", err)
		}
	})
}
