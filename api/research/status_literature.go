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
	titles := make([]sectionTitleJSON, 0, len(sum.First))
	for _, sec := range sum.First {
		titles = append(titles, sectionTitleJSON{ID: sec.ID, Position: sec.Position, Title: sectionTitle(sec.Text)})
	}
	return literatureSummaryJSON{Revision: sum.Revision, SectionCount: sum.Sections, CitationCount: sum.Citations, Sections: titles,
		SectionsTruncated: sum.Sections > int64(len(sum.First))}, nil
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

// literatureSummaryJSON is the literature review's summary in
// workflow.status_and_next's context. Fields are in the order of their
// JSON keys, as the map it replaced encoded them.
type literatureSummaryJSON struct {
	CitationCount     int64              `json:"citation_count"`
	Revision          int64              `json:"revision"`
	SectionCount      int64              `json:"section_count"`
	Sections          []sectionTitleJSON `json:"sections"`
	SectionsTruncated bool               `json:"sections_truncated"`
}

// sectionTitleJSON is one section of literatureSummaryJSON, by its title.
type sectionTitleJSON struct {
	Position int    `json:"position"`
	ID       string `json:"section_id"`
	Title    string `json:"title"`
}
