package research_test

import (
	"context"
	"errors"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestCiteSource: a new source is stored as given; a source already cited
// in the project merges its targets into that citation; a refused merge
// writes nothing; a citation of another project is never the match; a
// store that collides with a stored reference is a conflict.
func TestCiteSource(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		sameRef := func(ref string) func(research.Citation) bool {
			return func(c research.Citation) bool { return c.Ref == ref }
		}
		var merged []string
		merge := func(targets string) func(research.Citation) (string, error) {
			return func(c research.Citation) (string, error) { merged = append(merged, c.ID); return targets, nil }
		}
		fresh := func(id, project string) research.Citation {
			return research.Citation{ID: id, ProjectID: project, RefKind: "doi", Ref: "10.1/abc", Title: "A", TargetsJSON: `["t1"]`}
		}

		got, dup, err := research.CiteSource(ctx, db, fresh("cit_a", "prj_a"), "doi", "10.1/abc", sameRef("10.1/abc"), merge(`["never"]`))
		if err != nil || dup || got.ID != "cit_a" || got.TargetsJSON != `["t1"]` || got.CreatedAt.IsZero() || len(merged) != 0 {
			t.Fatalf("first cite = %+v dup=%v err=%v merged=%v", got, dup, err, merged)
		}

		// Another project citing the same source gets a citation of its own.
		got, dup, err = research.CiteSource(ctx, db, fresh("cit_b", "prj_b"), "doi", "10.1/abc", sameRef("10.1/abc"), merge(`["never"]`))
		if err != nil || dup || got.ID != "cit_b" || len(merged) != 0 {
			t.Fatalf("other project's cite = %+v dup=%v err=%v merged=%v", got, dup, err, merged)
		}

		got, dup, err = research.CiteSource(ctx, db, fresh("cit_unused", "prj_a"), "doi", "10.1/abc", sameRef("10.1/abc"), merge(`["t1","t2"]`))
		if err != nil || !dup || got.ID != "cit_a" || got.TargetsJSON != `["t1","t2"]` || len(merged) != 1 || merged[0] != "cit_a" {
			t.Fatalf("duplicate cite = %+v dup=%v err=%v merged=%v", got, dup, err, merged)
		}
		if stored := citation(t, db, "cit_a"); stored.TargetsJSON != `["t1","t2"]` {
			t.Fatalf("stored targets = %s", stored.TargetsJSON)
		}
		if stored := citation(t, db, "cit_b"); stored.TargetsJSON != `["t1"]` {
			t.Fatalf("the other project's citation changed: %s", stored.TargetsJSON)
		}

		refused := errors.New("too many targets")
		_, _, err = research.CiteSource(ctx, db, fresh("cit_unused", "prj_a"), "doi", "10.1/abc", sameRef("10.1/abc"),
			func(research.Citation) (string, error) { return "", refused })
		if !errors.Is(err, refused) {
			t.Fatalf("refused merge: %v", err)
		}
		if stored := citation(t, db, "cit_a"); stored.TargetsJSON != `["t1","t2"]` {
			t.Fatalf("a refused merge wrote %s", stored.TargetsJSON)
		}

		// No stored citation names the source, yet its reference is stored
		// (as when another call stored it first): a conflict, nothing written.
		_, _, err = research.CiteSource(ctx, db, fresh("cit_race", "prj_a"), "doi", "10.1/abc", func(research.Citation) bool { return false }, merge(`[]`))
		var me *research.Error
		if !errors.As(err, &me) || me.Code != research.CodeConflict {
			t.Fatalf("colliding store: %v", err)
		}
		var n int64
		if err := db.Model(&research.Citation{}).Where("id = ?", "cit_race").Count(&n).Error; err != nil || n != 0 {
			t.Fatalf("colliding store kept %d rows (%v)", n, err)
		}
	})
}

func citation(t *testing.T, db *gorm.DB, id string) research.Citation {
	t.Helper()
	var c research.Citation
	if err := db.Where("id = ?", id).Take(&c).Error; err != nil {
		t.Fatal(err)
	}
	return c
}
