package research

import (
	"context"

	"gorm.io/gorm"
)

// LitSummary is what a project's literature review holds, bounded: the
// counts, its revision (the newest edit's seq, 0 before any) and its first
// sections in order.
type LitSummary struct {
	Sections  int64
	Citations int64
	Revision  int64
	First     []LitSection
}

// LiteratureSummary reads the project's LitSummary with up to limit
// sections; with no section and no citation it reads nothing more and
// answers zero counts.
func LiteratureSummary(ctx context.Context, db *gorm.DB, projectID string, limit int) (LitSummary, error) {
	db = db.WithContext(ctx)
	var s LitSummary
	if err := db.Model(&LitSection{}).Where("project_id = ?", projectID).Count(&s.Sections).Error; err != nil {
		return s, err
	}
	if err := db.Model(&Citation{}).Where("project_id = ?", projectID).Count(&s.Citations).Error; err != nil {
		return s, err
	}
	if s.Sections == 0 && s.Citations == 0 {
		return s, nil
	}
	if err := db.Where("project_id = ?", projectID).Order("position, id").Limit(limit).Find(&s.First).Error; err != nil {
		return s, err
	}
	err := db.Model(&LitEdit{}).Where("project_id = ?", projectID).Select("COALESCE(MAX(seq), 0)").Scan(&s.Revision).Error
	return s, err
}

// ProjectCitations lists a project's citations, oldest first.
func ProjectCitations(ctx context.Context, db *gorm.DB, projectID string) ([]Citation, error) {
	var out []Citation
	err := db.WithContext(ctx).Where("project_id = ?", projectID).Order("created_at, id").Find(&out).Error
	return out, err
}

// Citation target types: what a citation may point at.
const (
	CiteTargetSection    = "litreview_section"
	CiteTargetExperiment = "experiment"
	CiteTargetClaim      = "claim"
)

// CiteTargetExists reports whether the project has the target of type
// typ (a CiteTarget*) and id; an unknown type has none.
func CiteTargetExists(ctx context.Context, db *gorm.DB, projectID, typ, id string) (bool, error) {
	var model any
	switch typ {
	case CiteTargetSection:
		model = &LitSection{}
	case CiteTargetExperiment:
		model = &Experiment{}
	case CiteTargetClaim:
		model = &Claim{}
	default:
		return false, nil
	}
	var n int64
	err := db.WithContext(ctx).Model(model).Where("project_id = ? AND id = ?", projectID, id).Count(&n).Error
	return n > 0, err
}
