package research_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestNextWaveCorpus_KeepsWhatFinishedWhileTheLastWaveWasOpen: the next
// wave's corpus is what finished after the last published wave snapshotted
// its corpus (at create), including what finished before that wave was
// published, and never an experiment a published wave's corpus holds;
// reflection_required counts the same experiments.
func TestNextWaveCorpus_KeepsWhatFinishedWhileTheLastWaveWasOpen(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		at := func(m int) *time.Time { v := t0.Add(time.Duration(m) * time.Minute); return &v }
		finished := func(id, status string, created int, finishedAt *time.Time) *research.Experiment {
			return &research.Experiment{ID: id, ProjectID: "prj_w", Name: id, Status: status, FinishedAt: finishedAt, CreatedAt: *at(created)}
		}
		mustCreate(t, db,
			&research.Project{ID: "prj_w", Name: "waves", CreatedBy: "op"},
			// The published wave snapshotted its corpus at minute 10 and was published at minute 20.
			&research.Reflection{ID: "rfl_published", ProjectID: "prj_w", Status: "published", LensesJSON: "[]",
				CorpusJSON: `[{"experiment_id":"exp_reflected"},{"experiment_id":"exp_reflected_no_finish_time"},{"experiment_id":"exp_reflected_late_clock"}]`,
				CreatedAt:  *at(10), PublishedAt: at(20)},
			// An abandoned wave's corpus was never reflected on: it excludes nothing.
			&research.Reflection{ID: "rfl_abandoned", ProjectID: "prj_w", Status: "abandoned", LensesJSON: "[]",
				CorpusJSON: `[{"experiment_id":"exp_while_open"}]`, CreatedAt: *at(22)},
			finished("exp_reflected", "complete", 1, at(5)),
			finished("exp_reflected_no_finish_time", "failed", 2, nil),
			// Its finished_at is after the snapshot, yet the published corpus holds it.
			finished("exp_reflected_late_clock", "complete", 3, at(11)),
			// Finished after the snapshot but before the publish.
			finished("exp_while_open", "failed", 4, at(15)),
			finished("exp_after_publish", "abandoned", 5, at(25)),
			// Finished 20 s before the snapshot's created_at yet missing
			// from its corpus: it finished while reflection.create was
			// storing the wave, or its finished_at came from a slower clock.
			finished("exp_in_the_snapshot_gap", "complete", 7, func() *time.Time { v := at(10).Add(-20 * time.Second); return &v }()),
			finished("exp_running", "running", 6, nil),
			&research.Experiment{ID: "exp_other_project", ProjectID: "prj_other", Name: "other", Status: "complete", FinishedAt: at(30)},
		)

		since, err := research.LastPublishedAt(ctx, db, "prj_w")
		if err != nil {
			t.Fatal(err)
		}
		corpus, err := research.FinishedSince(ctx, db, "prj_w", since)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "next corpus", ids(corpus, func(e research.Experiment) string { return e.ID }), []string{"exp_while_open", "exp_after_publish", "exp_in_the_snapshot_gap"})
		n, err := research.CountFinishedSince(ctx, db, "prj_w", since)
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Fatalf("finished since the last published wave = %d, want 3 (the next corpus)", n)
		}
		if since == nil || !since.Equal(*at(10)) {
			t.Fatalf("cutoff = %v, want the published wave's snapshot (created_at) %v", since, *at(10))
		}
	})
}

// TestNextWaveCorpus_IsEveryFinishedExperimentBeforeAnyPublish: with no
// published wave there is no cutoff, and an abandoned wave's corpus is
// still reflected on.
func TestNextWaveCorpus_IsEveryFinishedExperimentBeforeAnyPublish(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		mustCreate(t, db,
			&research.Project{ID: "prj_n", Name: "none", CreatedBy: "op"},
			&research.Reflection{ID: "rfl_abandoned", ProjectID: "prj_n", Status: "abandoned", LensesJSON: "[]",
				CorpusJSON: `[{"experiment_id":"exp_one"}]`, CreatedAt: t0.Add(time.Hour)},
			&research.Experiment{ID: "exp_one", ProjectID: "prj_n", Name: "one", Status: "complete", FinishedAt: &t0, CreatedAt: t0},
			&research.Experiment{ID: "exp_two", ProjectID: "prj_n", Name: "two", Status: "failed", CreatedAt: t0.Add(time.Minute)},
		)
		since, err := research.LastPublishedAt(ctx, db, "prj_n")
		if err != nil || since != nil {
			t.Fatalf("cutoff = %v, %v; want none", since, err)
		}
		corpus, err := research.FinishedSince(ctx, db, "prj_n", since)
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "first corpus", ids(corpus, func(e research.Experiment) string { return e.ID }), []string{"exp_one", "exp_two"})
	})
}
