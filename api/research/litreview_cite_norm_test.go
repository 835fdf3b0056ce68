package research

import (
	"context"
	"encoding/json"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

func TestSourceOf_LinksNameTheirDOIOrArxivID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind, ref string
		want      citeSource
	}{
		{"doi", "10.1000/xyz.42", citeSource{"doi", "10.1000/xyz.42"}},
		{"url", "https://doi.org/10.1000/XYZ.42", citeSource{"doi", "10.1000/xyz.42"}},
		{"url", "http://dx.doi.org/10.1000/xyz.42", citeSource{"doi", "10.1000/xyz.42"}},
		{"url", "https://doi.org/10.1000/a%2Fb", citeSource{"doi", "10.1000/a/b"}},
		{"arxiv", "2401.01234v2", citeSource{"arxiv", "2401.01234"}},
		{"arxiv", "hep-th/9901001v1", citeSource{"arxiv", "hep-th/9901001"}},
		{"url", "https://arxiv.org/abs/2401.01234", citeSource{"arxiv", "2401.01234"}},
		{"url", "https://arxiv.org/abs/2401.01234v3/", citeSource{"arxiv", "2401.01234"}},
		{"url", "http://arxiv.org/pdf/2401.01234v1.pdf", citeSource{"arxiv", "2401.01234"}},
		{"url", "https://www.arxiv.org/pdf/2401.01234", citeSource{"arxiv", "2401.01234"}},
		{"url", "https://arxiv.org/abs/hep-th/9901001v2", citeSource{"arxiv", "hep-th/9901001"}},
		// Not a DOI or arXiv link: the URL is its own source.
		{"url", "https://doi.org/", citeSource{"url", "https://doi.org/"}},
		{"url", "https://doi.org/10.1000/x?format=bib", citeSource{"url", "https://doi.org/10.1000/x?format=bib"}},
		{"url", "https://arxiv.org/list/cs.LG/recent", citeSource{"url", "https://arxiv.org/list/cs.LG/recent"}},
		{"url", "https://example.org/abs/2401.01234", citeSource{"url", "https://example.org/abs/2401.01234"}},
		{"url", "https://notdoi.org.example/10.1000/x", citeSource{"url", "https://notdoi.org.example/10.1000/x"}},
	}
	for _, c := range cases {
		if got := sourceOf(c.kind, c.ref); got != c.want {
			t.Errorf("sourceOf(%s, %s) = %+v, want %+v", c.kind, c.ref, got, c.want)
		}
	}
}

// cite calls litreview.cite and answers the decoded response.
func cite(t *testing.T, s *Service, args map[string]any) map[string]any {
	t.Helper()
	args["project_id"] = "prj_lit"
	raw, _ := json.Marshal(args)
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	out, terr := s.Invoke(context.Background(), agent, "litreview.cite", raw)
	if terr != nil {
		t.Fatalf("litreview.cite %s: %+v", raw, terr)
	}
	b, _ := json.Marshal(out)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLitreviewCite_SameSourceInAnotherFormIsADuplicate(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := newTestService(t)
		s.DB = db
		if err := db.Create(&models.Project{ID: "prj_lit", Name: "lit", CreatedBy: "op"}).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Create(&models.Claim{ID: "cl_1", ProjectID: "prj_lit", Statement: "s"}).Error; err != nil {
			t.Fatal(err)
		}
		idOf := func(m map[string]any) string {
			c, _ := m["citation"].(map[string]any)
			id, _ := c["citation_id"].(string)
			return id
		}
		groups := [][]map[string]any{
			{ // a DOI: first as a resolver link, then in other forms and cases
				{"url": "https://doi.org/10.1000/ABC.1"},
				{"doi": "10.1000/abc.1", "targets": []any{map[string]any{"type": "claim", "id": "cl_1"}}},
				{"url": "http://dx.doi.org/10.1000/abc.1"},
				{"doi": "http://dx.doi.org/10.1000/Abc.1"},
			},
			{ // a DOI first cited as a DOI
				{"doi": "10.1000/def.2"},
				{"url": "https://dx.doi.org/10.1000/DEF.2"},
			},
			{ // an arXiv id: versions and abs/pdf links are one paper
				{"arxiv_id": "2401.01234v2"},
				{"arxiv_id": "2401.01234"},
				{"arxiv_id": "arXiv:2401.01234v3"},
				{"url": "https://arxiv.org/abs/2401.01234v1"},
				{"url": "https://arxiv.org/pdf/2401.01234.pdf"},
			},
			{ // an arXiv link first
				{"url": "https://arxiv.org/pdf/hep-th/9901001v2"},
				{"arxiv_id": "hep-th/9901001"},
			},
			{ // a plain URL is compared as before
				{"url": "https://a.example/p"},
				{"url": "https://A.example/p#section"},
			},
		}
		seen := map[string]bool{}
		for gi, g := range groups {
			first := cite(t, s, g[0])
			if first["duplicate"] != false || idOf(first) == "" || seen[idOf(first)] {
				t.Fatalf("group %d: first cite %v is not new", gi, first)
			}
			seen[idOf(first)] = true
			for _, args := range g[1:] {
				again := cite(t, s, args)
				if again["duplicate"] != true || idOf(again) != idOf(first) {
					t.Errorf("group %d: %v not detected as duplicate of %s: %v", gi, args, idOf(first), again)
				}
			}
		}
		// The duplicate answers the first citation, in its registered form,
		// with the later call's targets merged.
		dup := cite(t, s, map[string]any{"doi": "10.1000/ABC.1"})
		c := dup["citation"].(map[string]any)
		if c["url"] != "https://doi.org/10.1000/ABC.1" || c["doi"] != nil {
			t.Errorf("duplicate changed the registered form: %v", c)
		}
		if ts, _ := c["targets"].([]any); len(ts) != 1 {
			t.Errorf("targets not merged: %v", c["targets"])
		}
		// Different sources stay distinct: another arXiv id (also one whose
		// id is a prefix of a cited one), another DOI.
		for _, args := range []map[string]any{{"arxiv_id": "2401.12345"}, {"arxiv_id": "2401.1234"}, {"arxiv_id": "2401.01235"}, {"doi": "10.1000/abc.10"},
			{"url": "https://doi.org/10.1000/abc.11"}, {"url": "https://arxiv.org/abs/2401.01236"}} {
			if m := cite(t, s, args); m["duplicate"] != false || seen[idOf(m)] {
				t.Errorf("%v wrongly a duplicate: %v", args, m)
			}
		}
		var n int64
		db.Model(&models.Citation{}).Where("project_id = ?", "prj_lit").Count(&n)
		if want := int64(len(groups) + 6); n != want {
			t.Errorf("%d citations stored, want %d", n, want)
		}
	})
}
