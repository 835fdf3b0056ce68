package research

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// StorageFilter selects a project's storage objects for FindObjects; an
// empty field does not filter.
type StorageFilter struct {
	ProjectID string
	ID        string
	Name      string
	Version   int
	Kind      string
	// Status keeps only objects in it; without one, expired objects are
	// kept only with IncludeExpired and deleted ones never.
	Status         string
	IncludeExpired bool
	Limit, Offset  int
}

// FindObjects answers one page of the objects f selects, newest first (by
// name, then newest version, within a creation instant), and how many f
// selects in all.
func FindObjects(ctx context.Context, db *gorm.DB, f StorageFilter) ([]StorageObject, int64, error) {
	q := db.WithContext(ctx).Model(&StorageObject{}).Where("project_id = ?", f.ProjectID)
	if f.ID != "" {
		q = q.Where("id = ?", f.ID)
	}
	if f.Name != "" {
		q = q.Where("name = ?", f.Name)
	}
	if f.Version > 0 {
		q = q.Where("version = ?", f.Version)
	}
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	switch {
	case f.Status != "":
		q = q.Where("status = ?", f.Status)
	case f.IncludeExpired:
		q = q.Where("status <> ?", StorageDeleted)
	default:
		q = q.Where("status NOT IN ?", []string{StorageExpired, StorageDeleted})
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []StorageObject
	err := q.Order("created_at DESC, name, version DESC").Limit(f.Limit).Offset(f.Offset).Find(&out).Error
	return out, total, err
}

// LatestAvailableObject loads the newest available version of the object
// named name in a project.
func LatestAvailableObject(ctx context.Context, db *gorm.DB, projectID, name string) (StorageObject, error) {
	var o StorageObject
	err := take(db.WithContext(ctx).Where("project_id = ? AND name = ? AND status = ?", projectID, name, StorageAvailable).Order("version DESC"), &o)
	return o, err
}

// ObjectByUploadTokenHash loads the object whose upload token hashes to
// hash.
func ObjectByUploadTokenHash(ctx context.Context, db *gorm.DB, hash string) (StorageObject, error) {
	var o StorageObject
	err := take(db.WithContext(ctx).Where("upload_token_hash = ?", hash), &o)
	return o, err
}

// CreateDownloadToken stores a download token (by its hash) for object
// objectID until expires.
func CreateDownloadToken(ctx context.Context, db *gorm.DB, hash, objectID string, expires time.Time) error {
	return db.WithContext(ctx).Create(&StorageToken{TokenHash: hash, ObjectID: objectID, ExpiresAt: expires}).Error
}

// DownloadTokenByHash loads the download token hashing to hash.
func DownloadTokenByHash(ctx context.Context, db *gorm.DB, hash string) (StorageToken, error) {
	var t StorageToken
	err := take(db.WithContext(ctx).Where("token_hash = ?", hash), &t)
	return t, err
}

// PinnedObjectsOf lists up to limit available, pinned objects an
// experiment produced (sandbox.pull_outputs, or storage.submit naming
// it), by path then version: the result files experiment.exhibit is built
// from.
func PinnedObjectsOf(ctx context.Context, db *gorm.DB, projectID, experimentID string, limit int) ([]StorageObject, error) {
	var out []StorageObject
	err := db.WithContext(ctx).Where("project_id = ? AND producing_experiment_id = ? AND pinned = ? AND status = ?",
		projectID, experimentID, true, StorageAvailable).Order("path, version").Limit(limit).Find(&out).Error
	return out, err
}
