package research

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Listings the research tools read, in the order their answers show.

// ProjectExperiments lists a project's experiments, oldest first.
func ProjectExperiments(ctx context.Context, db *gorm.DB, projectID string) ([]Experiment, error) {
	var out []Experiment
	err := db.WithContext(ctx).Where("project_id = ?", projectID).Order("created_at").Find(&out).Error
	return out, err
}

// OpenExperiments lists a project's experiments whose status is one of
// OpenStatuses (not complete, failed or abandoned), oldest first.
func OpenExperiments(ctx context.Context, db *gorm.DB, projectID string) ([]Experiment, error) {
	var out []Experiment
	err := db.WithContext(ctx).Where("project_id = ? AND status IN ?", projectID, OpenStatuses).Order("created_at").Find(&out).Error
	return out, err
}

// RecentExperiments lists up to limit experiments of every project, most
// recently updated first (the operator console's list).
func RecentExperiments(ctx context.Context, db *gorm.DB, limit int) ([]Experiment, error) {
	var out []Experiment
	err := db.WithContext(ctx).Order("updated_at DESC").Limit(limit).Find(&out).Error
	return out, err
}

// ProjectClaims lists a project's claims, oldest first.
func ProjectClaims(ctx context.Context, db *gorm.DB, projectID string) ([]Claim, error) {
	var out []Claim
	err := db.WithContext(ctx).Where("project_id = ?", projectID).Order("created_at").Find(&out).Error
	return out, err
}

// ProjectCandidates lists a project's candidates, newest first.
func ProjectCandidates(ctx context.Context, db *gorm.DB, projectID string) ([]Candidate, error) {
	var out []Candidate
	err := db.WithContext(ctx).Where("project_id = ?", projectID).Order("created_at DESC").Find(&out).Error
	return out, err
}

// ProjectPromotions lists a project's promotion events, newest first.
func ProjectPromotions(ctx context.Context, db *gorm.DB, projectID string) ([]Promotion, error) {
	var out []Promotion
	err := db.WithContext(ctx).Where("project_id = ?", projectID).Order("seq DESC").Find(&out).Error
	return out, err
}

// ProjectReflections lists up to limit of a project's reflection waves,
// newest first.
func ProjectReflections(ctx context.Context, db *gorm.DB, projectID string, limit int) ([]Reflection, error) {
	var out []Reflection
	err := db.WithContext(ctx).Where("project_id = ?", projectID).Order("created_at DESC").Limit(limit).Find(&out).Error
	return out, err
}

// LatestPublishedReflection loads a project's most recently published
// wave other than except ("" excepts none); ErrNoRecord if there is none.
func LatestPublishedReflection(ctx context.Context, db *gorm.DB, projectID, except string) (Reflection, error) {
	var r Reflection
	err := take(db.WithContext(ctx).Where("project_id = ? AND published_at IS NOT NULL AND id <> ?", projectID, except).Order("published_at DESC"), &r)
	return r, err
}

// ProjectReviewRequests lists up to limit of a project's review requests,
// newest first; a non-empty status keeps only requests in it.
func ProjectReviewRequests(ctx context.Context, db *gorm.DB, projectID, status string, limit int) ([]ReviewRequest, error) {
	q := db.WithContext(ctx).Where("project_id = ?", projectID).Order("created_at DESC").Limit(limit)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	var out []ReviewRequest
	err := q.Find(&out).Error
	return out, err
}

// PendingHumanReviews lists up to limit human review requests of every
// project still waiting for an operator at now: requested or started and
// not expired, oldest first.
func PendingHumanReviews(ctx context.Context, db *gorm.DB, now time.Time, limit int) ([]ReviewRequest, error) {
	var out []ReviewRequest
	err := db.WithContext(ctx).Where("role = ? AND status IN ? AND expires_at > ?", RoleHuman,
		[]string{ReviewRequested, ReviewStarted}, now).Order("created_at").Limit(limit).Find(&out).Error
	return out, err
}

// SubmittedReviews lists the answered review requests of kind on target
// targetID, oldest first.
func SubmittedReviews(ctx context.Context, db *gorm.DB, targetID, kind string) ([]ReviewRequest, error) {
	var out []ReviewRequest
	err := db.WithContext(ctx).Where("target_id = ? AND kind = ? AND status = ?", targetID, kind, ReviewSubmitted).Order("created_at").Find(&out).Error
	return out, err
}

// ProposalsOf lists a wave's consolidation proposals by revision.
func ProposalsOf(ctx context.Context, db *gorm.DB, reflectionID string) ([]ConsolidationProposal, error) {
	var out []ConsolidationProposal
	err := db.WithContext(ctx).Where("reflection_id = ?", reflectionID).Order("revision").Find(&out).Error
	return out, err
}
