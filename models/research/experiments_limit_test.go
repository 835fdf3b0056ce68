package research_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

var errFull = errors.New("project full")

// TestCreateExperiment_ConcurrentCreatesCannotTogetherPassTheLimit: with
// one slot left, eight concurrent creates of different names store one.
func TestCreateExperiment_ConcurrentCreatesCannotTogetherPassTheLimit(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		if err := db.Create(&research.Project{ID: "prj_l", Name: "limits", CreatedBy: "op"}).Error; err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 6; i++ {
			if err := db.Create(&research.Experiment{ID: fmt.Sprintf("exp_%d", i), ProjectID: "prj_l", Name: fmt.Sprintf("open-%d", i), Status: "planned"}).Error; err != nil {
				t.Fatal(err)
			}
		}
		limit := func(tx *gorm.DB) error {
			n, err := research.CountOpenExperiments(ctx, tx, "prj_l")
			if err == nil && n >= 7 {
				err = errFull
			}
			return err
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		created := 0
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, ok, err := research.CreateExperiment(ctx, db, research.Experiment{ID: fmt.Sprintf("exp_new%d", i), ProjectID: "prj_l",
					Name: fmt.Sprintf("new-%d", i), Status: "planned"}, limit)
				if err == nil && ok {
					mu.Lock()
					created++
					mu.Unlock()
				}
			}(i)
		}
		wg.Wait()
		n, err := research.CountOpenExperiments(ctx, db, "prj_l")
		if err != nil || n != 7 || created != 1 {
			t.Fatalf("%d created, %d open (%v); want exactly one more, 7 open", created, n, err)
		}
		// The same name again is the stored row, whatever the limit says.
		e, ok, err := research.CreateExperiment(ctx, db, research.Experiment{ID: "exp_again", ProjectID: "prj_l", Name: "open-0"}, limit)
		if err != nil || ok || e.ID != "exp_0" {
			t.Fatalf("existing name: %+v %v %v", e, ok, err)
		}
	})
}
