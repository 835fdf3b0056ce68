package research_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// TestCitationsMaybeNaming: each kind of source lists its own citations
// and the links of its resolver, oldest first, and never a citation of
// another project.
func TestCitationsMaybeNaming(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		cite := func(id, project, kind, ref string, minute int) *research.Citation {
			return &research.Citation{ID: id, ProjectID: project, RefKind: kind, Ref: ref, TargetsJSON: "[]", CreatedAt: t0.Add(time.Duration(minute) * time.Minute)}
		}
		mustCreate(t, db,
			// Ties on created_at are ordered by id.
			cite("cit_doi_link_b", "prj_a", "url", "https://doi.org/10.1/abc", 3),
			cite("cit_doi_link_a", "prj_a", "url", "https://dx.doi.org/10.1/abc", 3),
			cite("cit_doi", "prj_a", "doi", "10.1/abc", 2),
			cite("cit_doi_other", "prj_a", "doi", "10.1/xyz", 1),
			cite("cit_arxiv_v2", "prj_a", "arxiv", "2401.01234v2", 5),
			cite("cit_arxiv_link", "prj_a", "url", "https://arxiv.org/abs/2401.01234", 4),
			cite("cit_arxiv_other", "prj_a", "arxiv", "2402.00001", 6),
			cite("cit_url", "prj_a", "url", "https://example.org/paper", 7),
			cite("cit_url_query", "prj_a", "url", "https://example.org/paper?v=2", 8),
			// The same sources in another project.
			cite("cit_b_doi", "prj_b", "doi", "10.1/abc", 0),
			cite("cit_b_doi_link", "prj_b", "url", "https://doi.org/10.1/abc", 0),
			cite("cit_b_arxiv", "prj_b", "arxiv", "2401.01234", 0),
			cite("cit_b_url", "prj_b", "url", "https://example.org/paper", 0),
		)
		for _, tc := range []struct {
			project, kind, id string
			want              []string
		}{
			{"prj_a", "doi", "10.1/abc", []string{"cit_doi", "cit_doi_link_a", "cit_doi_link_b"}},
			{"prj_a", "arxiv", "2401.01234", []string{"cit_arxiv_link", "cit_arxiv_v2"}},
			{"prj_a", "url", "https://example.org/paper", []string{"cit_url"}},
			{"prj_a", "url", "https://example.org/none", []string{}},
			{"prj_b", "doi", "10.1/abc", []string{"cit_b_doi", "cit_b_doi_link"}},
			{"prj_b", "url", "https://example.org/paper", []string{"cit_b_url"}},
			{"prj_c", "doi", "10.1/abc", []string{}},
		} {
			cs, err := research.CitationsMaybeNaming(ctx, db, tc.project, tc.kind, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			sameIDs(t, tc.project+" "+tc.kind+" "+tc.id, ids(cs, func(c research.Citation) string { return c.ID }), tc.want)
		}
	})
}
