package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// Storage object statuses: uploading → completing → available → expired;
// deleted from any of them. Only the sweep expires; delete keeps the row.
const (
	StorageUploading  = "uploading"
	StorageCompleting = "completing"
	StorageAvailable  = "available"
	StorageExpired    = "expired"
	StorageDeleted    = "deleted"
)

// liveStatuses are the statuses whose row may reference its blob.
var liveStatuses = []string{StorageUploading, StorageCompleting, StorageAvailable}

// StorageObject is one version of a named object in a project's storage.
// Its bytes live in the blob store at BlobKey; rows with the same digest
// may share one BlobKey ("known bytes are available at once").
type StorageObject struct {
	ID                    string `gorm:"primaryKey;size:64"`
	ProjectID             string `gorm:"size:64;not null;uniqueIndex:idx_research_storage_version,priority:1;index"`
	Name                  string `gorm:"size:200;not null;uniqueIndex:idx_research_storage_version,priority:2"`
	Version               int    `gorm:"not null;uniqueIndex:idx_research_storage_version,priority:3"`
	Kind                  string `gorm:"size:16;not null"`
	Path                  string `gorm:"size:1024;not null"`
	ContentType           string `gorm:"size:200;not null;default:''"`
	SHA256                string `gorm:"size:64;not null;index"`
	SizeBytes             int64  `gorm:"not null"`
	Status                string `gorm:"size:16;not null;index"`
	Pinned                bool   `gorm:"not null;default:false"`
	ProducingExperimentID string `gorm:"size:64;not null;default:''"`
	ProducingRun          string `gorm:"size:200;not null;default:''"`
	SourceURI             string `gorm:"size:2000;not null;default:''"`
	Notes                 string `gorm:"size:4000;not null;default:''"`
	BlobKey               string `gorm:"size:512;not null;index"`
	UploadTokenHash       string `gorm:"size:64;not null;default:'';index"`
	// UploadBlobKey is where the current upload attempt's bytes go: a
	// fresh key per token, never BlobKey, so no PUT reaches bytes a
	// completion checked.
	UploadBlobKey   string `gorm:"size:512;not null;default:''"`
	UploadExpiresAt *time.Time
	LastError       string `gorm:"size:2000;not null;default:''"`
	ExpiresAt       *time.Time
	CompletedAt     *time.Time
	DeletedAt       *time.Time `gorm:"column:deleted_at"`
	CreatedBy       string     `gorm:"size:32;not null"`
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// TableName pins the table name.
func (StorageObject) TableName() string { return "research_storage_objects" }

// StorageToken is a hashed, expiring download token for one object.
type StorageToken struct {
	TokenHash string `gorm:"primaryKey;size:64"`
	ObjectID  string `gorm:"size:64;not null;index"`
	ExpiresAt time.Time
	CreatedAt time.Time
}

// TableName pins the table name.
func (StorageToken) TableName() string { return "research_storage_tokens" }

// SubmitObject registers o (ID, ProjectID, Name, digest, size, metadata,
// BlobKey set by the caller). The same name and digest as a live row return
// that row (created false). Otherwise o becomes the name's next version;
// when an available row of the project already holds the digest, o shares
// its bytes and is available at once, expiring after retention.
func SubmitObject(ctx context.Context, db *gorm.DB, o StorageObject, now time.Time, retention time.Duration) (StorageObject, bool, error) {
	var out StorageObject
	created := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var same StorageObject
		err := tx.Where("project_id = ? AND name = ? AND sha256 = ? AND size_bytes = ? AND status IN ?", o.ProjectID, o.Name, o.SHA256, o.SizeBytes, liveStatuses).
			Order("version DESC").Take(&same).Error
		if err == nil {
			out = same
			return nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		var maxV int
		if err := tx.Model(&StorageObject{}).Where("project_id = ? AND name = ?", o.ProjectID, o.Name).Select("COALESCE(MAX(version), 0)").Scan(&maxV).Error; err != nil {
			return err
		}
		o.Version = maxV + 1
		var known StorageObject
		err = tx.Where("project_id = ? AND sha256 = ? AND size_bytes = ? AND status = ?", o.ProjectID, o.SHA256, o.SizeBytes, StorageAvailable).Take(&known).Error
		switch {
		case err == nil:
			exp := now.Add(retention)
			o.BlobKey, o.Status, o.ExpiresAt, o.CompletedAt, o.UploadTokenHash, o.UploadExpiresAt = known.BlobKey, StorageAvailable, &exp, &now, "", nil
		case errors.Is(err, gorm.ErrRecordNotFound):
			o.Status = StorageUploading
		default:
			return err
		}
		if err := tx.Create(&o).Error; err != nil {
			return errorf(CodeConflict, "another submit of %s raced this one; retry", o.Name)
		}
		out, created = o, true
		return nil
	})
	return out, created, err
}

// GetObject loads one object of a project.
func GetObject(ctx context.Context, db *gorm.DB, projectID, id string) (StorageObject, error) {
	var o StorageObject
	err := db.WithContext(ctx).Where("id = ? AND project_id = ?", id, projectID).Take(&o).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return o, &Error{Code: CodeNotFound, Field: "/object_id", Message: "no storage object " + id + " in this project"}
	}
	return o, err
}

// SetUploadToken issues a new upload attempt for an uploading object: a
// token (hash) and the fresh blob key its bytes go to; an earlier
// attempt's token and key no longer reach the object.
func SetUploadToken(ctx context.Context, db *gorm.DB, id, tokenHash, uploadKey string, expires time.Time) error {
	res := db.WithContext(ctx).Model(&StorageObject{}).Where("id = ? AND status = ?", id, StorageUploading).
		Updates(map[string]any{"upload_token_hash": tokenHash, "upload_blob_key": uploadKey, "upload_expires_at": expires, "updated_at": time.Now().UTC()})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected != 1 {
		return errorf(CodeConflict, "the object is not waiting for bytes")
	}
	return nil
}

// BeginCompletion moves uploading → completing; only one caller wins. A
// row already completing (a crashed completion) may be completed again.
func BeginCompletion(ctx context.Context, db *gorm.DB, id string) error {
	res := db.WithContext(ctx).Model(&StorageObject{}).Where("id = ? AND status IN ?", id, []string{StorageUploading, StorageCompleting}).
		Updates(map[string]any{"status": StorageCompleting, "updated_at": time.Now().UTC()})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected != 1 {
		return errorf(CodeConflict, "the object is not waiting for completion")
	}
	return nil
}

// FinishCompletion settles a completing object: available (TTL starts now)
// when the bytes matched, else back to uploading with the reason recorded.
func FinishCompletion(ctx context.Context, db *gorm.DB, id string, matched bool, reason string, now time.Time, retention time.Duration) (StorageObject, error) {
	up := map[string]any{"updated_at": now}
	if matched {
		exp := now.Add(retention)
		up["status"], up["expires_at"], up["completed_at"], up["last_error"] = StorageAvailable, exp, now, ""
	} else {
		up["status"], up["last_error"] = StorageUploading, reason
	}
	if err := db.WithContext(ctx).Model(&StorageObject{}).Where("id = ? AND status = ?", id, StorageCompleting).Updates(up).Error; err != nil {
		return StorageObject{}, err
	}
	var o StorageObject
	return o, db.WithContext(ctx).Where("id = ?", id).Take(&o).Error
}

// BindCompletion makes a completing object available with its bytes at
// key, the copy the completion itself wrote and checked; won is false when
// another completion settled the object first (key is then unused). The
// attempt's key stays recorded until its URLs expire, so the sweep
// reclaims what a PUT after completion may still write there.
func BindCompletion(ctx context.Context, db *gorm.DB, id, key string, now time.Time, retention time.Duration) (o StorageObject, won bool, err error) {
	exp := now.Add(retention)
	res := db.WithContext(ctx).Model(&StorageObject{}).Where("id = ? AND status = ?", id, StorageCompleting).Updates(map[string]any{
		"status": StorageAvailable, "blob_key": key, "expires_at": exp, "completed_at": now, "last_error": "", "updated_at": now})
	if res.Error != nil {
		return o, false, res.Error
	}
	return o, res.RowsAffected == 1, db.WithContext(ctx).Where("id = ?", id).Take(&o).Error
}

// ObjectAction pins, unpins, renews or deletes an object. Pin clears the
// expiry; unpin and renew restart it; delete keeps the row. reclaim is the
// blob key to delete when no live row references it any more ("" if none).
func ObjectAction(ctx context.Context, db *gorm.DB, projectID, id, action string, now time.Time, retention time.Duration) (o StorageObject, reclaim string, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND project_id = ?", id, projectID).Take(&o).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return &Error{Code: CodeNotFound, Field: "/object_id", Message: "no storage object " + id + " in this project"}
			}
			return err
		}
		up := map[string]any{"updated_at": now}
		exp := now.Add(retention)
		switch {
		case action == "delete":
			if o.Status == StorageDeleted {
				return nil // idempotent
			}
			up["status"], up["deleted_at"], up["pinned"], up["expires_at"] = StorageDeleted, now, false, gorm.Expr("NULL")
		case o.Status == StorageExpired:
			return &Error{Code: CodeExpired, Field: "/object_id", Message: "the object expired; submit it again"}
		case o.Status != StorageAvailable:
			return &Error{Code: CodeConflict, Field: "/object_id", Message: "the object is " + o.Status + "; only available objects can be " + action + "ned"}
		case action == "pin":
			up["pinned"], up["expires_at"] = true, gorm.Expr("NULL")
		case action == "unpin", action == "renew":
			up["pinned"], up["expires_at"] = false, exp
		default:
			return &Error{Code: CodeInvalid, Field: "/action", Message: "unknown action " + action}
		}
		if err := tx.Model(&StorageObject{}).Where("id = ?", o.ID).Updates(up).Error; err != nil {
			return err
		}
		var fresh StorageObject // a fresh value: NULL columns must not keep old fields
		if err := tx.Where("id = ?", o.ID).Take(&fresh).Error; err != nil {
			return err
		}
		o = fresh
		if action == "delete" {
			used, err := blobReferenced(tx, o.BlobKey)
			if err != nil {
				return err
			}
			if !used {
				reclaim = o.BlobKey
			}
		}
		return nil
	})
	return o, reclaim, err
}

// TouchOnFetch moves an unpinned object's expiry forward to now+retention,
// never back.
func TouchOnFetch(ctx context.Context, db *gorm.DB, id string, now time.Time, retention time.Duration) error {
	exp := now.Add(retention)
	return db.WithContext(ctx).Model(&StorageObject{}).Where("id = ? AND pinned = ? AND status = ? AND (expires_at IS NULL OR expires_at < ?)", id, false, StorageAvailable, exp).
		Updates(map[string]any{"expires_at": exp, "updated_at": now}).Error
}

// blobReferenced reports whether a live row still references key.
func blobReferenced(tx *gorm.DB, key string) (bool, error) {
	var n int64
	err := tx.Model(&StorageObject{}).Where("blob_key = ? AND status IN ?", key, liveStatuses).Count(&n).Error
	return n > 0, err
}

// SweepExpired expires available, unpinned objects whose expiry passed and
// abandoned uploads whose token passed, at most limit rows per call. It
// returns the blob keys no live row references any more, for the caller to
// delete; a retried sweep finds nothing new to expire.
func SweepExpired(ctx context.Context, db *gorm.DB, now time.Time, limit int) (expired int, reclaim []string, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var due []StorageObject
		if err := tx.Where("(status = ? AND pinned = ? AND expires_at IS NOT NULL AND expires_at <= ?) OR (status = ? AND upload_expires_at IS NOT NULL AND upload_expires_at <= ?)",
			StorageAvailable, false, now, StorageUploading, now).Order("id").Limit(limit).Find(&due).Error; err != nil {
			return err
		}
		keys := map[string]bool{}
		for _, o := range due {
			res := tx.Model(&StorageObject{}).Where("id = ? AND status = ?", o.ID, o.Status).
				Updates(map[string]any{"status": StorageExpired, "upload_blob_key": "", "updated_at": now})
			if res.Error != nil {
				return res.Error
			}
			expired += int(res.RowsAffected)
			keys[o.BlobKey] = true
			if o.UploadBlobKey != "" && res.RowsAffected == 1 {
				reclaim = append(reclaim, o.UploadBlobKey) // an abandoned attempt's bytes; no row reads them
			}
		}
		for k := range keys {
			used, err := blobReferenced(tx, k)
			if err != nil {
				return err
			}
			if !used {
				reclaim = append(reclaim, k)
			}
		}
		retired, err := retireUploadKeys(tx, now, limit)
		reclaim = append(reclaim, retired...)
		return err
	})
	return expired, reclaim, err
}

// retireUploadKeys answers, and forgets, the upload keys of settled
// objects whose upload URLs have expired: nothing reads those keys, and
// no URL can write them any more.
func retireUploadKeys(tx *gorm.DB, now time.Time, limit int) ([]string, error) {
	var settled []StorageObject
	if err := tx.Where("status IN ? AND upload_blob_key <> '' AND upload_expires_at IS NOT NULL AND upload_expires_at <= ?",
		[]string{StorageAvailable, StorageExpired, StorageDeleted}, now).Order("id").Limit(limit).Find(&settled).Error; err != nil {
		return nil, err
	}
	var keys []string
	for _, o := range settled {
		res := tx.Model(&StorageObject{}).Where("id = ? AND upload_blob_key = ?", o.ID, o.UploadBlobKey).Update("upload_blob_key", "")
		if res.Error != nil {
			return nil, res.Error
		}
		if res.RowsAffected == 1 {
			keys = append(keys, o.UploadBlobKey)
		}
	}
	return keys, nil
}
