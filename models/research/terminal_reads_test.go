package research_test

import (
	"context"
	"errors"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestTargetStatuses: an experiment's and a reflection wave's status read
// by id, whatever their project; an unknown id (or one of the other kind)
// is ErrNoRecord.
func TestTargetStatuses(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		mustCreate(t, db,
			&research.Experiment{ID: "exp_done", ProjectID: "prj_a", Name: "done", Status: "complete"},
			&research.Experiment{ID: "exp_open", ProjectID: "prj_b", Name: "open", Status: "running"},
			&research.Reflection{ID: "ref_pub", ProjectID: "prj_a", Status: "published", LensesJSON: "[]", CorpusJSON: "[]"},
		)
		for id, want := range map[string]string{"exp_done": "complete", "exp_open": "running"} {
			if got, err := research.ExperimentStatus(ctx, db, id); err != nil || got != want {
				t.Fatalf("ExperimentStatus(%s) = %q, %v; want %q", id, got, err, want)
			}
		}
		if got, err := research.ReflectionStatus(ctx, db, "ref_pub"); err != nil || got != "published" {
			t.Fatalf("ReflectionStatus(ref_pub) = %q, %v", got, err)
		}
		for _, id := range []string{"exp_none", "ref_pub"} {
			if got, err := research.ExperimentStatus(ctx, db, id); !errors.Is(err, research.ErrNoRecord) || got != "" {
				t.Fatalf("ExperimentStatus(%s) = %q, %v; want ErrNoRecord", id, got, err)
			}
		}
		if got, err := research.ReflectionStatus(ctx, db, "exp_done"); !errors.Is(err, research.ErrNoRecord) || got != "" {
			t.Fatalf("ReflectionStatus(exp_done) = %q, %v; want ErrNoRecord", got, err)
		}
	})
}
