package research

import (
	"context"

	"gorm.io/gorm"
)

// Row lookups the research tools make, each answering ErrNoRecord when no
// row matches. The ...InProject forms match only a row of that project, so
// an id of another project is as unknown as a made-up one.

// ProjectByID loads a project.
func ProjectByID(ctx context.Context, db *gorm.DB, id string) (Project, error) {
	var p Project
	err := take(db.WithContext(ctx).Where("id = ?", id), &p)
	return p, err
}

// ProjectByName loads the project named name.
func ProjectByName(ctx context.Context, db *gorm.DB, name string) (Project, error) {
	var p Project
	err := take(db.WithContext(ctx).Where("name = ?", name), &p)
	return p, err
}

// ExperimentInProject loads experiment id of project projectID.
func ExperimentInProject(ctx context.Context, db *gorm.DB, projectID, id string) (Experiment, error) {
	var e Experiment
	err := take(db.WithContext(ctx).Where("id = ? AND project_id = ?", id, projectID), &e)
	return e, err
}

// ClaimInProject loads claim id of project projectID.
func ClaimInProject(ctx context.Context, db *gorm.DB, projectID, id string) (Claim, error) {
	var c Claim
	err := take(db.WithContext(ctx).Where("id = ? AND project_id = ?", id, projectID), &c)
	return c, err
}

// CandidateInProject loads candidate id of project projectID.
func CandidateInProject(ctx context.Context, db *gorm.DB, projectID, id string) (Candidate, error) {
	var c Candidate
	err := take(db.WithContext(ctx).Where("id = ? AND project_id = ?", id, projectID), &c)
	return c, err
}

// CandidateByID loads a candidate.
func CandidateByID(ctx context.Context, db *gorm.DB, id string) (Candidate, error) {
	var c Candidate
	err := take(db.WithContext(ctx).Where("id = ?", id), &c)
	return c, err
}

// ReflectionByID loads a reflection wave.
func ReflectionByID(ctx context.Context, db *gorm.DB, id string) (Reflection, error) {
	var r Reflection
	err := take(db.WithContext(ctx).Where("id = ?", id), &r)
	return r, err
}

// ReviewRequestByID loads a review request.
func ReviewRequestByID(ctx context.Context, db *gorm.DB, id string) (ReviewRequest, error) {
	var r ReviewRequest
	err := take(db.WithContext(ctx).Where("id = ?", id), &r)
	return r, err
}

// ReviewSessionByID loads a review session.
func ReviewSessionByID(ctx context.Context, db *gorm.DB, id string) (ReviewSession, error) {
	var s ReviewSession
	err := take(db.WithContext(ctx).Where("id = ?", id), &s)
	return s, err
}

// ReviewSessionOfRequest loads the session opened on review request
// requestID (a request has at most one).
func ReviewSessionOfRequest(ctx context.Context, db *gorm.DB, requestID string) (ReviewSession, error) {
	var s ReviewSession
	err := take(db.WithContext(ctx).Where("request_id = ?", requestID), &s)
	return s, err
}

// ArtifactByUploadTokenHash loads the artifact whose upload token hashes
// to hash.
func ArtifactByUploadTokenHash(ctx context.Context, db *gorm.DB, hash string) (Artifact, error) {
	var a Artifact
	err := take(db.WithContext(ctx).Where("upload_token_hash = ?", hash), &a)
	return a, err
}

// ReflectionInProject loads reflection wave id of project projectID.
func ReflectionInProject(ctx context.Context, db *gorm.DB, projectID, id string) (Reflection, error) {
	var r Reflection
	err := take(db.WithContext(ctx).Where("id = ? AND project_id = ?", id, projectID), &r)
	return r, err
}

// OpenReflection loads the project's open wave (at most one is open: its
// open_project holds the project's id).
func OpenReflection(ctx context.Context, db *gorm.DB, projectID string) (Reflection, error) {
	var r Reflection
	err := take(db.WithContext(ctx).Where("open_project = ?", projectID), &r)
	return r, err
}

// LatestReflection loads the project's open wave, else its newest.
func LatestReflection(ctx context.Context, db *gorm.DB, projectID string) (Reflection, error) {
	var r Reflection
	err := take(db.WithContext(ctx).Where("project_id = ?", projectID).Order("open_project IS NULL, created_at DESC"), &r)
	return r, err
}

// FeedHandleOf loads a handle registered in a project's feed.
func FeedHandleOf(ctx context.Context, db *gorm.DB, projectID, handle string) (FeedHandle, error) {
	var h FeedHandle
	err := take(db.WithContext(ctx).Where("project_id = ? AND handle = ?", projectID, handle), &h)
	return h, err
}

// ClaimExists reports whether project projectID has claim id.
func ClaimExists(ctx context.Context, db *gorm.DB, projectID, id string) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Claim{}).Where("id = ? AND project_id = ?", id, projectID).Count(&n).Error
	return n > 0, err
}

// ExperimentNamed loads the project's experiment named name.
func ExperimentNamed(ctx context.Context, db *gorm.DB, projectID, name string) (Experiment, error) {
	var e Experiment
	err := take(db.WithContext(ctx).Where("project_id = ? AND name = ?", projectID, name), &e)
	return e, err
}
