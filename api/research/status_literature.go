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
	db := s.DB.WithContext(ctx)
	var sections, citations int64
	if err := db.Model(&models.LitSection{}).Where("project_id = ?", projectID).Count(&sections).Error; err != nil {
		return nil, err
	}
	if err := db.Model(&models.Citation{}).Where("project_id = ?", projectID).Count(&citations).Error; err != nil {
		return nil, err
	}
	if sections == 0 && citations == 0 {
		return nil, nil
	}
	var ss []models.LitSection
	if err := db.Where("project_id = ?", projectID).Order("position, id").Limit(maxSummarySections).Find(&ss).Error; err != nil {
		return nil, err
	}
	var rev int64
	if err := db.Model(&models.LitEdit{}).Where("project_id = ?", projectID).Select("COALESCE(MAX(seq), 0)").Scan(&rev).Error; err != nil {
		return nil, err
	}
	titles := make([]map[string]any, 0, len(ss))
	for _, sec := range ss {
		titles = append(titles, map[string]any{"section_id": sec.ID, "position": sec.Position, "title": sectionTitle(sec.Text)})
	}
	return map[string]any{"revision": rev, "section_count": sections, "citation_count": citations, "sections": titles,
		"sections_truncated": sections > int64(len(ss))}, nil
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
