package research

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
)

// litSummaryOf answers the project-scope status's literature_summary.
func litSummaryOf(t *testing.T, s *Service, projectID string) any {
	t.Helper()
	out := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": projectID})
	c, ok := out["context"].(map[string]any)
	if !ok {
		t.Fatalf("no context: %v", out)
	}
	v, ok := c["literature_summary"]
	if !ok {
		t.Fatalf("context lacks literature_summary: %v", c)
	}
	return v
}

func TestStatusAndNext_LiteratureSummaryIsBoundedAndNullWithoutAReview(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		s := newTestService(t)
		s.DB = db
		for _, id := range []string{"prj_a", "prj_b", "prj_c"} {
			if err := db.Create(&models.Project{ID: id, Name: "name-" + id, CreatedBy: "op"}).Error; err != nil {
				t.Fatal(err)
			}
		}
		if v := litSummaryOf(t, s, "prj_a"); v != nil {
			t.Fatalf("no review: literature_summary = %v, want null", v)
		}

		// prj_b: 22 sections and two citations; prj_c: a citation only.
		long := strings.Repeat("x", 200)
		for i := 0; i < 22; i++ {
			text := fmt.Sprintf("## Section %d\nbody %d", i, i)
			switch i {
			case 1:
				text = "\n  \nplain first line\n## not this"
			case 2:
				text = "# " + long
			}
			if _, _, err := models.ApplyLitChange(ctx, db, "prj_b", models.LitChange{Op: "add", SectionID: models.NewID("sec_"), Text: text, By: "a"}); err != nil {
				t.Fatal(err)
			}
		}
		for i, ref := range []string{"10.1000/a", "10.1000/b"} {
			if err := db.Create(&models.Citation{ID: fmt.Sprintf("cite_%d", i), ProjectID: "prj_b", RefKind: "doi", Ref: ref, TargetsJSON: "[]"}).Error; err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Create(&models.Citation{ID: "cite_c", ProjectID: "prj_c", RefKind: "url", Ref: "https://a.example/p", TargetsJSON: "[]"}).Error; err != nil {
			t.Fatal(err)
		}

		sum, ok := litSummaryOf(t, s, "prj_b").(map[string]any)
		if !ok {
			t.Fatal("prj_b: literature_summary is not an object")
		}
		if sum["section_count"] != float64(22) || sum["citation_count"] != float64(2) || sum["revision"] != float64(22) || sum["sections_truncated"] != true {
			t.Fatalf("prj_b summary: %v", sum)
		}
		secs, _ := sum["sections"].([]any)
		if len(secs) != maxSummarySections {
			t.Fatalf("%d sections listed, want %d", len(secs), maxSummarySections)
		}
		title := func(i int) string { return secs[i].(map[string]any)["title"].(string) }
		if title(0) != "Section 0" || title(1) != "plain first line" || title(19) != "Section 19" {
			t.Errorf("titles: %q %q %q", title(0), title(1), title(19))
		}
		if want := strings.Repeat("x", maxSectionTitle) + "…"; title(2) != want {
			t.Errorf("long title not cut: %d chars", len(title(2)))
		}
		if secs[5].(map[string]any)["position"] != float64(5) || secs[5].(map[string]any)["section_id"] == "" {
			t.Errorf("section 5: %v", secs[5])
		}

		sum, ok = litSummaryOf(t, s, "prj_c").(map[string]any)
		if !ok || sum["section_count"] != float64(0) || sum["citation_count"] != float64(1) || sum["sections_truncated"] != false {
			t.Fatalf("prj_c summary: %v", sum)
		}
		if secs, _ := sum["sections"].([]any); secs == nil || len(secs) != 0 {
			t.Errorf("prj_c sections: %v", sum["sections"])
		}
	})
}
