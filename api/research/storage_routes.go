package research

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// downloadTTL is how long a download URL is valid.
const downloadTTL = 15 * time.Minute

// mountStorage registers the token URLs of the storage family (only when
// the family is on).
func (s *Service) mountStorage(r *rest.Router) {
	if !s.Config.Features.Storage {
		return
	}
	r.Undocumented(http.MethodPut, StorageUploadPrefix+":token", "raw storage object bytes, authorized by an expiring upload token", s.storageUpload)
	r.Undocumented(http.MethodPost, StorageCompletePrefix+":token", "complete a storage upload: check the bytes against the declaration", s.storageComplete)
	r.Undocumented(http.MethodGet, StorageDownloadPrefix+":token", "storage object bytes, authorized by an expiring download token", s.storageDownload)
}

// objectByUploadToken finds the object an unexpired upload token names.
func (s *Service) objectByUploadToken(c *gin.Context) (models.StorageObject, bool) {
	var o models.StorageObject
	err := s.DB.WithContext(c.Request.Context()).Where("upload_token_hash = ?", platform.HashSecret(c.Param("token"))).Take(&o).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		rest.Abort(c, http.StatusNotFound, "not_found", "unknown upload token")
		return o, false
	case err != nil:
		rest.Unavailable(c, "database unavailable; retry")
		return o, false
	case o.UploadExpiresAt == nil || s.now().After(*o.UploadExpiresAt):
		rest.Abort(c, http.StatusGone, "expired", "the upload token expired; call storage.submit again")
		return o, false
	}
	return o, true
}

// storageUpload stores the bytes of an uploading object (at most the
// declared size; more is refused and nothing is kept). Completion checks them.
func (s *Service) storageUpload(c *gin.Context) {
	o, ok := s.objectByUploadToken(c)
	if !ok {
		return
	}
	if o.Status != models.StorageUploading {
		rest.Abort(c, http.StatusConflict, "conflict", "object "+o.ID+" is "+o.Status+"; it takes no bytes")
		return
	}
	info, err := s.Blobs.Put(c.Request.Context(), o.BlobKey, c.Request.Body, max(o.SizeBytes, 1))
	if err != nil {
		rest.Abort(c, http.StatusRequestEntityTooLarge, "invalid_input", "upload refused (more bytes than size_bytes declared?): "+err.Error())
		return
	}
	c.JSON(http.StatusOK, gin.H{"object_id": o.ID, "received_sha256": info.SHA256, "received_bytes": info.Size, "next": "POST the completion URL"})
}

func (s *Service) storageComplete(c *gin.Context) {
	o, ok := s.objectByUploadToken(c)
	if !ok {
		return
	}
	out, err := s.completeUpload(c.Request.Context(), o)
	if err != nil {
		te := s.asToolError(c.Request.Context(), "storage.complete", err)
		st := statusOf[te.Code]
		if st == 0 {
			st = 400
		}
		c.AbortWithStatusJSON(st, gin.H{"error": te})
		return
	}
	c.JSON(http.StatusOK, out)
}

// completeUpload checks the stored bytes against the declared digest and
// size: a match makes the object available; a mismatch deletes the bytes,
// returns the object to uploading and answers invalid_input.
func (s *Service) completeUpload(ctx context.Context, o models.StorageObject) (map[string]any, error) {
	if o.Status == models.StorageAvailable {
		return map[string]any{"object_id": o.ID, "status": o.Status, "object": objectView(o, false), "replayed": true}, nil
	}
	if err := models.BeginCompletion(ctx, s.DB, o.ID); err != nil {
		return nil, pointAt(err, "/object_id")
	}
	info, err := s.Blobs.Stat(ctx, o.BlobKey)
	reason := ""
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		reason = "no bytes were uploaded"
	case err != nil:
		if _, ferr := models.FinishCompletion(ctx, s.DB, o.ID, false, "blob store unavailable", s.now(), s.Config.StorageRetention); ferr != nil {
			return nil, ferr
		}
		return nil, err
	case info.SHA256 != o.SHA256 || info.Size != o.SizeBytes:
		reason = "uploaded bytes (sha256 " + info.SHA256 + ", " + strconv.FormatInt(info.Size, 10) + " bytes) do not match the declaration (sha256 " +
			o.SHA256 + ", " + strconv.FormatInt(o.SizeBytes, 10) + " bytes)"
		if derr := s.Blobs.Delete(ctx, o.BlobKey); derr != nil {
			s.Log.WarnContext(ctx, "storage: could not delete rejected bytes", "key", o.BlobKey, "err", derr)
		}
	}
	done, err := models.FinishCompletion(ctx, s.DB, o.ID, reason == "", reason, s.now(), s.Config.StorageRetention)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return nil, &ToolError{Code: "invalid_input", Reason: "upload_rejected", Pointer: "/sha256", Message: "upload rejected, nothing kept: " + reason,
			Details: map[string]any{"object_id": o.ID, "status": done.Status}}
	}
	return map[string]any{"object_id": done.ID, "status": done.Status, "object": objectView(done, false)}, nil
}

// downloadURL is a presigned URL (S3) or an API token URL (filesystem).
func (s *Service) downloadURL(ctx context.Context, o models.StorageObject) (string, time.Time, error) {
	expires := s.now().Add(downloadTTL)
	if p, ok := s.Blobs.(blobstore.Presigner); ok {
		u, err := p.PresignGet(ctx, o.BlobKey, downloadTTL)
		return u, expires, err
	}
	token := "sd_" + models.RandomHex(32)
	if err := s.DB.WithContext(ctx).Create(&models.StorageToken{TokenHash: platform.HashSecret(token), ObjectID: o.ID, ExpiresAt: expires}).Error; err != nil {
		return "", expires, err
	}
	return s.publicBase(ctx) + StorageDownloadPrefix + token, expires, nil
}

func (s *Service) storageDownload(c *gin.Context) {
	ctx := c.Request.Context()
	var tok models.StorageToken
	if err := s.DB.WithContext(ctx).Where("token_hash = ?", platform.HashSecret(c.Param("token"))).Take(&tok).Error; err != nil {
		rest.Abort(c, http.StatusNotFound, "not_found", "unknown download token")
		return
	}
	if s.now().After(tok.ExpiresAt) {
		rest.Abort(c, http.StatusGone, "expired", "the download URL expired; call storage.fetch again")
		return
	}
	var o models.StorageObject
	if err := s.DB.WithContext(ctx).Where("id = ?", tok.ObjectID).Take(&o).Error; err != nil || o.Status != models.StorageAvailable {
		rest.Abort(c, http.StatusGone, "expired", "the object is no longer available")
		return
	}
	rc, err := s.Blobs.Open(ctx, o.BlobKey)
	if err != nil {
		rest.Unavailable(c, "blob store unavailable; retry")
		return
	}
	defer rc.Close()
	c.Header("Content-Length", strconv.FormatInt(o.SizeBytes, 10))
	c.Header("Content-Type", "application/octet-stream")
	c.Status(http.StatusOK)
	_, _ = io.Copy(c.Writer, rc)
}
