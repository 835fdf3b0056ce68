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
