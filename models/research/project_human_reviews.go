package research

import (
	"slices"
	"strings"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// ProjectHumanReviewsMigration adds research_projects.human_reviews: the
// review kinds an operator marked as human for the project.
func ProjectHumanReviewsMigration() migrate.Migration {
	return migrate.Migration{ID: "2026120111_research_project_human_reviews", Up: func(tx *gorm.DB) error {
		return tx.Migrator().AddColumn(&projectHumanReviewsV1{}, "HumanReviews")
	}}
}

type projectHumanReviewsV1 struct {
	HumanReviews string `gorm:"size:200;not null;default:''"`
}

func (projectHumanReviewsV1) TableName() string { return "research_projects" }

// RequiresHumanReview reports whether the project's operator marked
// reviews of kind (design, experiment, reflection, consolidation) as human.
func (p Project) RequiresHumanReview(kind string) bool {
	return kind != "" && slices.Contains(strings.Split(p.HumanReviews, ","), kind)
}
