package research

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// ArtifactLanding is what an upload records on its artifact once the
// bytes are stored.
type ArtifactLanding struct {
	// BlobKey is where this upload attempt stored the bytes.
	BlobKey string
	// SHA256 and Size describe the stored bytes.
	SHA256 string
	Size   int64
	// Problems are what the role's content check found; none is valid.
	Problems []string
	// UploadedAt is when the bytes landed.
	UploadedAt time.Time
}

// ErrArtifactLanded means an upload had already landed on the artifact;
// nothing was written.
var ErrArtifactLanded = errors.New("research: the artifact's upload already landed")

// LandArtifact records l on artifact id once, as a compare-and-set on its
// pending upload: an artifact an upload already landed on (or none with
// that id) answers ErrArtifactLanded. deliver (telling the target's
// workflow) runs inside the same transaction, so a landing its workflow
// was not told of is not recorded; its error is answered as it is.
func LandArtifact(ctx context.Context, db *gorm.DB, id string, l ArtifactLanding, deliver func() error) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&Artifact{}).Where("id = ? AND uploaded_at IS NULL", id).Updates(map[string]any{
			"blob_key": l.BlobKey, "sha256": l.SHA256, "size": l.Size, "valid": len(l.Problems) == 0,
			"problems": strings.Join(l.Problems, "\n"), "uploaded_at": l.UploadedAt})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return ErrArtifactLanded
		}
		return deliver()
	})
}
