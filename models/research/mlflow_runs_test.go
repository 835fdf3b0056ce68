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

// TestMLflowRuns: one run per experiment — a second record answers the
// first — and it is finished once.
func TestMLflowRuns(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		if _, err := research.MLflowRunOf(ctx, db, "exp_1"); !errors.Is(err, research.ErrNoRecord) {
			t.Fatalf("no run yet: %v", err)
		}
		first, err := research.RecordMLflowRun(ctx, db, research.MLflowRun{ExperimentID: "exp_1", ProjectID: "prj", MLflowExperimentID: "m1", RunID: "run_a"})
		if err != nil || first.RunID != "run_a" {
			t.Fatalf("first record: %+v %v", first, err)
		}
		again, err := research.RecordMLflowRun(ctx, db, research.MLflowRun{ExperimentID: "exp_1", ProjectID: "prj", MLflowExperimentID: "m1", RunID: "run_b"})
		if err != nil || again.RunID != "run_a" {
			t.Fatalf("a racing second record must answer the first run: %+v %v", again, err)
		}
		t1 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		if err := research.FinishMLflowRun(ctx, db, "exp_1", t1); err != nil {
			t.Fatal(err)
		}
		if err := research.FinishMLflowRun(ctx, db, "exp_1", t1.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		got, err := research.MLflowRunOf(ctx, db, "exp_1")
		if err != nil || got.FinishedAt == nil || !got.FinishedAt.Equal(t1) {
			t.Fatalf("finished once at %v: %+v %v", t1, got.FinishedAt, err)
		}
	})
}
