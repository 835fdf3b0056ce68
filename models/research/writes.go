package research

import (
	"context"

	"gorm.io/gorm"
)

// Plain row writes of the research tools. A Create* stores the row as
// given and fills in its timestamps, which the tools answer with.

// CreateClaim stores a new claim.
func CreateClaim(ctx context.Context, db *gorm.DB, c *Claim) error {
	return db.WithContext(ctx).Create(c).Error
}

// UpdateClaim sets the columns of up on claim id.
func UpdateClaim(ctx context.Context, db *gorm.DB, id string, up map[string]any) error {
	return db.WithContext(ctx).Model(&Claim{}).Where("id = ?", id).Updates(up).Error
}

// CreateProject stores a new project.
func CreateProject(ctx context.Context, db *gorm.DB, p *Project) error {
	return db.WithContext(ctx).Create(p).Error
}

// VisibleProjects lists every project when all is set, else those whose
// id is in ids, oldest first.
func VisibleProjects(ctx context.Context, db *gorm.DB, all bool, ids []string) ([]Project, error) {
	q := db.WithContext(ctx).Order("created_at, id")
	if !all {
		q = q.Where("id IN ?", append([]string{""}, ids...))
	}
	var out []Project
	err := q.Find(&out).Error
	return out, err
}

// CreateCandidateStage stores a candidate's new stage.
func CreateCandidateStage(ctx context.Context, db *gorm.DB, st *CandidateStage) error {
	return db.WithContext(ctx).Create(st).Error
}

// CreateArtifact stores a submitted artifact (its bytes not yet landed).
func CreateArtifact(ctx context.Context, db *gorm.DB, a *Artifact) error {
	return db.WithContext(ctx).Create(a).Error
}
