package research_test

import (
	"context"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

func TestFinalState_StoredOnceAndReadBack(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		const id = "research-experiment/exp_1"
		if _, ok, err := research.FinalState(ctx, db, id); ok || err != nil {
			t.Fatalf("before the workflow ended: ok=%v err=%v", ok, err)
		}
		first := research.WorkflowFinalState{WorkflowID: id, Kind: research.FinalKindExperiment, Revision: 7, StateJSON: `{"status":"complete"}`}
		if err := research.StoreFinalState(ctx, db, first); err != nil {
			t.Fatal(err)
		}
		// A retried activity writes nothing twice, even with other bytes.
		retry := first
		retry.Revision, retry.StateJSON = 8, `{"status":"failed"}`
		if err := research.StoreFinalState(ctx, db, retry); err != nil {
			t.Fatal(err)
		}
		got, ok, err := research.FinalState(ctx, db, id)
		if err != nil || !ok || got.Revision != 7 || got.StateJSON != first.StateJSON || got.Kind != research.FinalKindExperiment {
			t.Fatalf("read back %+v ok=%v err=%v", got, ok, err)
		}
		var n int64
		db.Model(&research.WorkflowFinalState{}).Count(&n)
		if n != 1 {
			t.Fatalf("%d rows, want 1", n)
		}
	})
}
