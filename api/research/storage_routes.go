package research

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

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
	o, err := models.ObjectByUploadTokenHash(c.Request.Context(), s.DB, platform.HashSecret(c.Param("token")))
	switch {
	case errors.Is(err, models.ErrNoRecord):
		rest.Abort(c, http.StatusNotFound, CodeNotFound, "unknown upload token")
		return o, false
	case err != nil:
		rest.Unavailable(c, "database unavailable; retry")
		return o, false
	case o.UploadExpiresAt == nil || s.now().After(*o.UploadExpiresAt):
		rest.Abort(c, http.StatusGone, CodeExpired, "the upload token expired; call storage.submit again")
		return o, false
	}
	return o, true
}

// storageUpload stores the bytes of an uploading object's current attempt
// (at most the declared size; more is refused and nothing is kept) under
// the attempt's own key. Completion checks a copy of them.
func (s *Service) storageUpload(c *gin.Context) {
	o, ok := s.objectByUploadToken(c)
	if !ok {
		return
	}
	if o.Status != models.StorageUploading {
		rest.Abort(c, http.StatusConflict, CodeConflict, "object "+o.ID+" is "+o.Status+"; it takes no bytes")
		return
	}
	if o.UploadBlobKey == "" {
		rest.Abort(c, http.StatusGone, CodeExpired, "this upload token predates per-attempt uploads; call storage.put_object for a new one")
		return
	}
	info, err := s.Blobs.Put(c.Request.Context(), o.UploadBlobKey, c.Request.Body, max(o.SizeBytes, 1))
	if err != nil {
		rest.Abort(c, http.StatusRequestEntityTooLarge, CodeInvalidInput, "upload refused (more bytes than size_bytes declared?): "+err.Error())
		return
	}
	c.JSON(http.StatusOK, storageReceivedResp{ObjectID: o.ID, ReceivedSHA256: info.SHA256, ReceivedBytes: info.Size, Next: "POST the completion URL"})
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

// completeUpload checks the uploaded bytes against the declared digest and
// size. It copies the attempt's bytes to a key of its own, hashing what it
// wrote, so the object it makes available holds exactly the bytes it
// checked: a PUT racing the check, or a presigned PUT after it, reaches
// only the attempt's key. A mismatch deletes the bytes, returns the object
// to uploading and answers invalid_input.
func (s *Service) completeUpload(ctx context.Context, o models.StorageObject) (*storageCompletedResp, error) {
	if o.Status == models.StorageAvailable {
		return &storageCompletedResp{ObjectID: o.ID, Status: o.Status, Object: objectView(o), Replayed: true}, nil
	}
	if err := models.BeginCompletion(ctx, s.DB, o.ID); err != nil {
		return nil, pointAt(err, "/object_id")
	}
	key := boundKey(o)
	info, reason, err := s.copyAttempt(ctx, o, key)
	if err != nil {
		if _, ferr := models.FinishCompletion(ctx, s.DB, o.ID, false, "blob store unavailable", s.now(), s.Config.StorageRetention); ferr != nil {
			return nil, ferr
		}
		return nil, err
	}
	if reason == "" && (info.SHA256 != o.SHA256 || info.Size != o.SizeBytes) {
		reason = "uploaded bytes (sha256 " + info.SHA256 + ", " + strconv.FormatInt(info.Size, 10) + " bytes) do not match the declaration (sha256 " +
			o.SHA256 + ", " + strconv.FormatInt(o.SizeBytes, 10) + " bytes)"
	}
	if reason != "" {
		s.deleteBlobs(ctx, key, o.UploadBlobKey)
		done, err := models.FinishCompletion(ctx, s.DB, o.ID, false, reason, s.now(), s.Config.StorageRetention)
		if err != nil {
			return nil, err
		}
		return nil, &ToolError{Code: CodeInvalidInput, Reason: reasonUploadRejected, Pointer: "/sha256", Message: "upload rejected, nothing kept: " + reason,
			Details: map[string]any{"object_id": o.ID, "status": done.Status}}
	}
	done, won, err := models.BindCompletion(ctx, s.DB, o.ID, key, s.now(), s.Config.StorageRetention)
	if err != nil {
		return nil, err
	}
	if !won { // another completion settled it; this copy is unused
		s.deleteBlobs(ctx, key)
	} else {
		s.deleteBlobs(ctx, o.UploadBlobKey)
	}
	return &storageCompletedResp{ObjectID: done.ID, Status: done.Status, Object: objectView(done)}, nil
}

// copyAttempt copies o's upload attempt to key, answering what landed
// there, or why nothing can (no bytes were uploaded).
func (s *Service) copyAttempt(ctx context.Context, o models.StorageObject, key string) (blobstore.Info, string, error) {
	if o.UploadBlobKey == "" {
		return blobstore.Info{}, "no bytes were uploaded", nil
	}
	rc, err := s.Blobs.Open(ctx, o.UploadBlobKey)
	if errors.Is(err, blobstore.ErrNotFound) {
		return blobstore.Info{}, "no bytes were uploaded", nil
	}
	if err != nil {
		return blobstore.Info{}, "", err
	}
	defer func() { _ = rc.Close() }()
	// One byte over the declaration is enough to refuse it.
	info, err := s.Blobs.Put(ctx, key, io.LimitReader(rc, o.SizeBytes+1), 0)
	return info, "", err
}

// deleteBlobs deletes keys best effort (the sweep is the backstop).
func (s *Service) deleteBlobs(ctx context.Context, keys ...string) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if err := s.Blobs.Delete(ctx, k); err != nil {
			s.Log.WarnContext(ctx, "storage: could not delete bytes", "key", k, "err", err)
		}
	}
}

// downloadURL is a presigned URL (S3) or an API token URL (filesystem).
func (s *Service) downloadURL(ctx context.Context, o models.StorageObject) (string, time.Time, error) {
	expires := s.now().Add(downloadTTL)
	if p, ok := s.Blobs.(blobstore.Presigner); ok {
		u, err := p.PresignGet(ctx, o.BlobKey, downloadTTL)
		return u, expires, err
	}
	token := "sd_" + models.RandomHex(32)
	if err := models.CreateDownloadToken(ctx, s.DB, platform.HashSecret(token), o.ID, expires); err != nil {
		return "", expires, err
	}
	return s.publicBase(ctx) + StorageDownloadPrefix + token, expires, nil
}

func (s *Service) storageDownload(c *gin.Context) {
	ctx := c.Request.Context()
	tok, err := models.DownloadTokenByHash(ctx, s.DB, platform.HashSecret(c.Param("token")))
	if err != nil {
		rest.Abort(c, http.StatusNotFound, CodeNotFound, "unknown download token")
		return
	}
	if s.now().After(tok.ExpiresAt) {
		rest.Abort(c, http.StatusGone, CodeExpired, "the download URL expired; call storage.fetch again")
		return
	}
	o, err := models.StorageObjectByID(ctx, s.DB, tok.ObjectID)
	if err != nil || o.Status != models.StorageAvailable {
		rest.Abort(c, http.StatusGone, CodeExpired, "the object is no longer available")
		return
	}
	rc, err := s.Blobs.Open(ctx, o.BlobKey)
	if err != nil {
		rest.Unavailable(c, "blob store unavailable; retry")
		return
	}
	defer func() { _ = rc.Close() }()
	c.Header("Content-Length", strconv.FormatInt(o.SizeBytes, 10))
	c.Header("Content-Type", "application/octet-stream")
	c.Status(http.StatusOK)
	_, _ = io.Copy(c.Writer, rc)
}

// Blob keys of a storage object's bytes. An upload attempt writes its own
// key; a completion copies those bytes to a key of its own, checks that
// copy, and binds the object to it. No token or presigned URL ever names
// a key an available object reads, so bytes cannot be swapped after the
// check.

// uploadAttemptKey is a fresh key for one upload attempt of o.
func uploadAttemptKey(o models.StorageObject) string {
	return "research/" + o.ProjectID + "/storage/" + o.ID + ".upload-" + models.RandomHex(12)
}

// boundKey is a fresh key for the bytes one completion of o checks.
func boundKey(o models.StorageObject) string {
	return "research/" + o.ProjectID + "/storage/" + o.ID + ".bytes-" + models.RandomHex(12)
}
