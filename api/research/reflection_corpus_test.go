package research

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
)

// TestSnapshotCorpus_IsWhatFinishedSinceTheLastPublishedWave: experiments
// an earlier published wave reflected on are not the next wave's corpus.
func TestSnapshotCorpus_IsWhatFinishedSinceTheLastPublishedWave(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := newTestService(t)
		s.DB = db
		published := time.Now().UTC().Add(-time.Hour)
		before, after := published.Add(-time.Hour), published.Add(30*time.Minute)
		for _, row := range []any{
			&models.Project{ID: "prj_c", Name: "corpus", CreatedBy: "op"},
			&models.Reflection{ID: "rfl_old", ProjectID: "prj_c", Status: "published", LensesJSON: "[]", CorpusJSON: "[]", PublishedAt: &published},
			&models.Experiment{ID: "exp_reflected", ProjectID: "prj_c", Name: "reflected", Status: "complete", FinishedAt: &before},
			&models.Experiment{ID: "exp_new", ProjectID: "prj_c", Name: "new-one", Status: "failed", FinishedAt: &after},
			&models.Experiment{ID: "exp_open", ProjectID: "prj_c", Name: "still-open", Status: "running"},
		} {
			if err := db.Create(row).Error; err != nil {
				t.Fatal(err)
			}
		}
		corpus, err := s.snapshotCorpus(context.Background(), "prj_c")
		if err != nil {
			t.Fatal(err)
		}
		if len(corpus) != 1 || corpus[0].ExperimentID != "exp_new" {
			t.Fatalf("corpus %+v, want only exp_new", corpus)
		}
	})
}
