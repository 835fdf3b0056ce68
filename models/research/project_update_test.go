package research_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestUpdateProject: the columns are set on the project's row and on the
// struct passed; another project's row is left as it was.
func TestUpdateProject(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		mustCreate(t, db,
			&research.Project{ID: "prj_a", Name: "a", Description: "old", CreatedBy: "op"},
			&research.Project{ID: "prj_b", Name: "b", Description: "old", CreatedBy: "op"},
		)
		p, err := research.ProjectByID(ctx, db, "prj_a")
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		if err := research.UpdateProject(ctx, db, &p, map[string]any{"updated_at": at, "description": "new", "human_reviews": "design,experiment"}); err != nil {
			t.Fatal(err)
		}
		if p.ID != "prj_a" || p.Description != "new" || p.HumanReviews != "design,experiment" || !p.UpdatedAt.Equal(at) {
			t.Fatalf("updated struct %+v", p)
		}
		stored, err := research.ProjectByID(ctx, db, "prj_a")
		if err != nil || stored.Description != "new" || stored.HumanReviews != "design,experiment" || !stored.UpdatedAt.Equal(at) {
			t.Fatalf("stored %+v %v", stored, err)
		}
		other, err := research.ProjectByID(ctx, db, "prj_b")
		if err != nil || other.Description != "old" || other.HumanReviews != "" {
			t.Fatalf("another project changed: %+v %v", other, err)
		}
	})
}
