package flylab_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"gorm.io/gorm"

	fl "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestSnapshot_KeepsTheLatestRevisionWhateverTheWriteOrder(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		if _, err := fl.LoadSnapshot(ctx, db, "session_a"); !errors.Is(err, fl.ErrNotFound) {
			t.Fatalf("no snapshot yet: got %v", err)
		}
		steps := []struct {
			rev  int
			body string
			want int
		}{
			{3, `{"revision":3}`, 3},
			{3, `{"revision":3}`, 3}, // a retried write
			{2, `{"revision":2}`, 3}, // a late write of an older commit
			{7, `{"revision":7}`, 7},
		}
		for _, s := range steps {
			if err := fl.SaveSnapshot(ctx, db, "session_a", s.rev, []byte(s.body)); err != nil {
				t.Fatalf("save %d: %v", s.rev, err)
			}
			got, err := fl.LoadSnapshot(ctx, db, "session_a")
			if err != nil || got.Revision != s.want || got.State != `{"revision":`+strconv.Itoa(s.want)+`}` {
				t.Fatalf("after saving %d: %+v %v, want revision %d", s.rev, got, err, s.want)
			}
		}
		if err := fl.SaveSnapshot(ctx, db, "session_b", 1, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if got, _ := fl.LoadSnapshot(ctx, db, "session_a"); got.Revision != 7 {
			t.Fatalf("another session's write moved session_a to %d", got.Revision)
		}
	})
}

// TestSnapshot_TheCommitThatHappenedReplacesOneThatDidNot performs a lost
// workflow task: its worker stored the snapshot of revision 4 and died
// before Temporal recorded the commit; another call then committed
// revision 4 with other state, storing its result with the snapshot as a
// search does. That commit's snapshot must replace the one no history
// holds, or a read after the workflow is purged (and a session restored
// from it) would show the call that never happened. A retry of the
// commit, or a late write of an older revision, changes nothing.
func TestSnapshot_TheCommitThatHappenedReplacesOneThatDidNot(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		lost, committed := `{"revision":4,"hypothesis":"lost"}`, `{"revision":4,"hypothesis":"committed"}`
		if err := fl.SaveSnapshot(ctx, db, "session_l", 4, []byte(lost)); err != nil {
			t.Fatal(err)
		}
		result := fl.ToolResult{Key: "session_l/find_fly_circuits/rev-4/u2", SessionID: "session_l", Tool: "find_fly_circuits", Data: `{}`}
		if err := fl.SaveSnapshotWithResult(ctx, db, "session_l", 4, []byte(committed), result); err != nil {
			t.Fatal(err)
		}
		for _, late := range []struct {
			rev  int
			body string
		}{{4, committed}, {3, `{"revision":3}`}} {
			if err := fl.SaveSnapshot(ctx, db, "session_l", late.rev, []byte(late.body)); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := fl.LoadSnapshot(ctx, db, "session_l"); err != nil || got.Revision != 4 || got.State != committed {
			t.Fatalf("stored %d %q (%v), want the commit that happened: %q", got.Revision, got.State, err, committed)
		}
	})
}
