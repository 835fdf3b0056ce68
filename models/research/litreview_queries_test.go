package research_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestLiteratureSummary: nothing for a project without a review; counts,
// revision and the first sections in position order otherwise; citation
// targets exist only in their own project.
func TestLiteratureSummary(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		empty, err := research.LiteratureSummary(ctx, db, "prj_a", 2)
		if err != nil || empty.Sections != 0 || empty.Citations != 0 || empty.Revision != 0 || len(empty.First) != 0 {
			t.Fatalf("no review: %+v %v", empty, err)
		}
		t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		mustCreate(t, db,
			&research.LitSection{ID: "lit_c", ProjectID: "prj_a", Position: 3, Text: "# C"},
			&research.LitSection{ID: "lit_a", ProjectID: "prj_a", Position: 1, Text: "# A"},
			&research.LitSection{ID: "lit_b", ProjectID: "prj_a", Position: 2, Text: "# B"},
			&research.LitSection{ID: "lit_z", ProjectID: "prj_b", Position: 0, Text: "# Z"},
			&research.LitEdit{ID: "le_1", ProjectID: "prj_a", Seq: 4, Op: "add", SectionID: "lit_a", By: "agent"},
			&research.LitEdit{ID: "le_2", ProjectID: "prj_a", Seq: 7, Op: "add", SectionID: "lit_b", By: "agent"},
			&research.Citation{ID: "cit_2", ProjectID: "prj_a", RefKind: "doi", Ref: "10.1/b", TargetsJSON: "[]", CreatedAt: t0.Add(time.Minute)},
			&research.Citation{ID: "cit_1", ProjectID: "prj_a", RefKind: "doi", Ref: "10.1/a", TargetsJSON: "[]", CreatedAt: t0},
		)
		sum, err := research.LiteratureSummary(ctx, db, "prj_a", 2)
		if err != nil || sum.Sections != 3 || sum.Citations != 2 || sum.Revision != 7 {
			t.Fatalf("summary %+v %v", sum, err)
		}
		sameIDs(t, "first sections", ids(sum.First, func(s research.LitSection) string { return s.ID }), []string{"lit_a", "lit_b"})
		cs, err := research.ProjectCitations(ctx, db, "prj_a")
		if err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "citations", ids(cs, func(c research.Citation) string { return c.ID }), []string{"cit_1", "cit_2"})
		mustCreate(t, db, &research.Claim{ID: "clm_1", ProjectID: "prj_a", Statement: "s", Status: "active", Confidence: "medium"})
		for _, tc := range []struct {
			typ, project, id string
			want             bool
		}{
			{research.CiteTargetSection, "prj_a", "lit_a", true},
			{research.CiteTargetSection, "prj_a", "lit_z", false},
			{research.CiteTargetClaim, "prj_a", "clm_1", true},
			{research.CiteTargetClaim, "prj_b", "clm_1", false},
			{research.CiteTargetExperiment, "prj_a", "clm_1", false},
			{"paper", "prj_a", "lit_a", false},
		} {
			got, err := research.CiteTargetExists(ctx, db, tc.project, tc.typ, tc.id)
			if err != nil || got != tc.want {
				t.Fatalf("%s %s in %s: %v %v, want %v", tc.typ, tc.id, tc.project, got, err, tc.want)
			}
		}
	})
}
