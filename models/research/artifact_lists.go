package research

import (
	"context"

	"gorm.io/gorm"
)

// LandedArtifacts lists the uploaded artifacts of attempt of one target
// (targetType experiment or reflection), in upload order, so a later
// artifact of a role replaces an earlier one.
func LandedArtifacts(ctx context.Context, db *gorm.DB, targetType, targetID string, attempt int) ([]Artifact, error) {
	var out []Artifact
	err := db.WithContext(ctx).Where("target_type = ? AND target_id = ? AND attempt = ? AND uploaded_at IS NOT NULL", targetType, targetID, attempt).
		Order("uploaded_at, created_at").Find(&out).Error
	return out, err
}

// AttemptArtifacts lists the uploaded artifacts of attempt of target
// targetID, in the order they were submitted.
func AttemptArtifacts(ctx context.Context, db *gorm.DB, targetType, targetID string, attempt int) ([]Artifact, error) {
	var out []Artifact
	err := db.WithContext(ctx).Where("target_type = ? AND target_id = ? AND attempt = ? AND uploaded_at IS NOT NULL", targetType, targetID, attempt).
		Order("created_at").Find(&out).Error
	return out, err
}

// UploadedArtifacts lists every uploaded artifact of target targetID, of
// any attempt, in the order they were submitted.
func UploadedArtifacts(ctx context.Context, db *gorm.DB, targetID string) ([]Artifact, error) {
	var out []Artifact
	err := db.WithContext(ctx).Where("target_id = ? AND uploaded_at IS NOT NULL", targetID).Order("created_at").Find(&out).Error
	return out, err
}

// ArtifactFilter selects artifacts of one project for FindArtifacts; an
// empty field does not filter.
type ArtifactFilter struct {
	ProjectID  string
	IDs        []string
	TargetType string
	TargetID   string
	Role       string
	// Limit caps the rows (0: no cap).
	Limit int
}

// FindArtifacts lists the project's artifacts f selects, newest first.
func FindArtifacts(ctx context.Context, db *gorm.DB, f ArtifactFilter) ([]Artifact, error) {
	q := db.WithContext(ctx).Where("project_id = ?", f.ProjectID).Order("created_at DESC")
	if f.Limit > 0 {
		q = q.Limit(f.Limit)
	}
	if len(f.IDs) > 0 {
		q = q.Where("id IN ?", f.IDs)
	}
	if f.TargetType != "" {
		q = q.Where("target_type = ?", f.TargetType)
	}
	if f.TargetID != "" {
		q = q.Where("target_id = ?", f.TargetID)
	}
	if f.Role != "" {
		q = q.Where("role = ?", f.Role)
	}
	var out []Artifact
	err := q.Find(&out).Error
	return out, err
}
