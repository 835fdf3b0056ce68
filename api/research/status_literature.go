package research

import (
	"context"
	"strings"
	"unicode/utf8"

	models "github.com/gatehouse/gatehouse/models/research"
)

// Bounds of the literature summary in workflow.status_and_next: the full
// review is litreview.view's.
const (
	maxSummarySections = 20
	maxSectionTitle    = 120
)

// literatureSummary is a bounded summary of the project's literature
// review: revision, section and citation counts and the titles of the
// first sections in order. It is nil when the project has no review (no
// section and no citation).
func (s *Service) literatureSummary(ctx context.Context, projectID string) (any, error) {
	sum, err := models.LiteratureSummary(ctx, s.DB, projectID, maxSummarySections)
	if err != nil {
		return nil, err
	}
	if sum.Sections == 0 && sum.Citations == 0 {
		return nil, nil
	}
	titles := make([]map[string]any, 0, len(sum.First))
	for _, sec := range sum.First {
		titles = append(titles, map[string]any{"section_id": sec.ID, "position": sec.Position, "title": sectionTitle(sec.Text)})
	}
	return map[string]any{"revision": sum.Revision, "section_count": sum.Sections, "citation_count": sum.Citations, "sections": titles,
		"sections_truncated": sum.Sections > int64(len(sum.First))}, nil
}

// sectionTitle is a section's first non-blank line without its heading
// marks, cut to maxSectionTitle characters.
func sectionTitle(text string) string {
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if t == "" {
			continue
		}
		if utf8.RuneCountInString(t) > maxSectionTitle {
			t = string([]rune(t)[:maxSectionTitle]) + "…"
		}
		return t
	}
	return ""
}
