package research

import (
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// StorageUploadKeyMigration adds research_storage_objects.upload_blob_key:
// the blob key of the current upload attempt, which its token (or
// presigned PUT) writes and no available object ever reads.
func StorageUploadKeyMigration() migrate.Migration {
	return migrate.Migration{ID: "2026120111_research_storage_upload_key", Up: func(tx *gorm.DB) error {
		return tx.Migrator().AddColumn(&storageUploadKeyV1{}, "UploadBlobKey")
	}}
}

type storageUploadKeyV1 struct {
	UploadBlobKey string `gorm:"size:512;not null;default:''"`
}

func (storageUploadKeyV1) TableName() string { return "research_storage_objects" }
