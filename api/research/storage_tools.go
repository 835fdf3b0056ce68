package research

import (
	"context"
	"path"
	"regexp"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// Storage URL prefixes: raw bytes in (PUT), completion (POST), bytes out
// (GET). Each is authorized by a single object's expiring token.
const (
	StorageUploadPrefix   = "/api/storage/u/"
	StorageCompletePrefix = "/api/storage/c/"
	StorageDownloadPrefix = "/api/storage/d/"
)

var storageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+=-]{0,199}$`)

type storageArgs struct {
	ProjectID             string `json:"project_id"`
	Path                  string `json:"path"`
	Kind                  string `json:"kind"`
	SHA256                string `json:"sha256"`
	SizeBytes             int64  `json:"size_bytes"`
	Name                  string `json:"name"`
	ContentType           string `json:"content_type"`
	ProducingExperimentID string `json:"producing_experiment_id"`
	ProducingRun          string `json:"producing_run"`
	SourceURI             string `json:"source_uri"`
	Notes                 string `json:"notes"`
	ObjectID              string `json:"object_id"`
	Version               int    `json:"version"`
	Status                string `json:"status"`
	IncludeExpired        bool   `json:"include_expired"`
	Limit                 int    `json:"limit"`
	Offset                int    `json:"offset"`
	Compact               bool   `json:"compact"`
	IncludeDownload       bool   `json:"include_download"`
	Action                string `json:"action"`
}

func storageSubmit(ctx context.Context, s *Service, c *Call) (any, error) {
	var in storageArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if in.Name == "" {
		in.Name = path.Base(in.Path)
	}
	if !storageName.MatchString(in.Name) {
		return nil, invalid("/name", "name must be 1–200 characters of letters, digits and . _ @ + = - (set name when the path's file name is not)")
	}
	if in.ProducingExperimentID != "" {
		if _, _, err := s.experiment(ctx, c, in.ProjectID, in.ProducingExperimentID); err != nil {
			return nil, pointAt(err, "/producing_experiment_id")
		}
	}
	if !s.presigns() && in.SizeBytes > s.Config.MaxBodyBytes {
		return nil, toolErr(CodeInvalidInput, "/size_bytes", "this deployment's filesystem store accepts uploads up to %d bytes", s.Config.MaxBodyBytes)
	}
	o := models.StorageObject{ID: models.NewID("obj_"), ProjectID: in.ProjectID, Name: in.Name, Kind: in.Kind, Path: in.Path,
		ContentType: in.ContentType, SHA256: in.SHA256, SizeBytes: in.SizeBytes, ProducingExperimentID: in.ProducingExperimentID,
		ProducingRun: in.ProducingRun, SourceURI: in.SourceURI, Notes: in.Notes, CreatedBy: c.Principal.CredentialID}
	o.BlobKey = "research/" + in.ProjectID + "/storage/" + o.ID
	got, created, err := models.SubmitObject(ctx, s.DB, o, s.now(), s.Config.StorageRetention)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"object_id": got.ID, "name": got.Name, "version": got.Version, "status": got.Status, "created": created, "object": objectView(got, false)}
	if got.Status != models.StorageUploading {
		out["upload_required"] = false
		out["note"] = "these bytes are already stored; nothing to upload"
		return out, nil
	}
	if got.Path != in.Path { // an idempotent replay from another path uploads from this one
		got.Path = in.Path
	}
	up, err := s.uploadInstructions(ctx, got)
	if err != nil {
		return nil, err
	}
	for k, v := range up {
		out[k] = v
	}
	return out, nil
}

// uploadInstructions issues a fresh upload token for an uploading object
// and answers the one-line command: PUT the bytes, then POST completion.
func (s *Service) uploadInstructions(ctx context.Context, o models.StorageObject) (map[string]any, error) {
	token := "su_" + models.RandomHex(32)
	expires := s.now().Add(uploadTTL)
	attemptKey := uploadAttemptKey(o)
	if err := models.SetUploadToken(ctx, s.DB, o.ID, platform.HashSecret(token), attemptKey, expires); err != nil {
		return nil, err
	}
	if o.UploadBlobKey != "" { // the replaced attempt's bytes; the sweep is the backstop
		_ = s.Blobs.Delete(ctx, o.UploadBlobKey)
	}
	base := s.publicBase(ctx)
	putURL := base + StorageUploadPrefix + token
	if p, ok := s.Blobs.(blobstore.Presigner); ok {
		// The presigned PUT names this attempt's key, which no available
		// object reads: a PUT after completion changes nothing stored.
		u, err := p.PresignPut(ctx, attemptKey, uploadTTL)
		if err != nil {
			return nil, err
		}
		putURL = u
	}
	completeURL := base + StorageCompletePrefix + token
	return map[string]any{
		"upload_required": true,
		"run":             "curl -sf -T '" + o.Path + "' '" + putURL + "' && curl -sf -X POST '" + completeURL + "'",
		"upload":          map[string]any{"method": "PUT", "url": putURL, "expires_at": expires},
		"complete":        map[string]any{"method": "POST", "url": completeURL, "expires_at": expires},
		"note":            "the object becomes available only when the uploaded bytes match sha256 and size_bytes; a mismatch is rejected and nothing is kept",
	}, nil
}

func storageFetch(ctx context.Context, s *Service, c *Call) (any, error) {
	var in storageArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if (in.ObjectID == "") == (in.Name == "") {
		return nil, invalid("/object_id", "give exactly one of object_id or name")
	}
	var o models.StorageObject
	var err error
	if in.ObjectID != "" {
		o, err = models.GetObject(ctx, s.DB, in.ProjectID, in.ObjectID)
	} else {
		o, err = models.LatestAvailableObject(ctx, s.DB, in.ProjectID, in.Name)
		if err != nil {
			return nil, toolErr(CodeNotFound, "/name", "no available object named %s", in.Name)
		}
	}
	if err != nil {
		return nil, err
	}
	switch o.Status {
	case models.StorageAvailable:
	case models.StorageExpired:
		return nil, toolErr(CodeExpired, "/object_id", "object %s expired; submit it again", o.ID)
	default:
		return nil, toolErr(CodeConflict, "/object_id", "object %s is %s, not available", o.ID, o.Status)
	}
	if err := models.TouchOnFetch(ctx, s.DB, o.ID, s.now(), s.Config.StorageRetention); err != nil {
		return nil, err
	}
	url, expires, err := s.downloadURL(ctx, o)
	if err != nil {
		return nil, err
	}
	fresh, err := models.GetObject(ctx, s.DB, in.ProjectID, o.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"object_id": o.ID, "name": o.Name, "version": o.Version, "sha256": o.SHA256, "size_bytes": o.SizeBytes,
		"run":      "curl -sf -o '" + in.Path + "' '" + url + "'",
		"download": map[string]any{"method": "GET", "url": url, "expires_at": expires}, "object": objectView(fresh, false)}, nil
}

func storageObjectTool(ctx context.Context, s *Service, c *Call) (any, error) {
	var in storageArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	o, reclaim, err := models.ObjectAction(ctx, s.DB, in.ProjectID, in.ObjectID, in.Action, s.now(), s.Config.StorageRetention)
	if err != nil {
		return nil, err
	}
	if reclaim != "" {
		if err := s.Blobs.Delete(ctx, reclaim); err != nil { // the sweep's reclaim is the backstop
			s.Log.WarnContext(ctx, "storage: reclaim failed", "key", reclaim, "err", err)
		}
	}
	return map[string]any{"object_id": o.ID, "action": in.Action, "status": o.Status, "object": objectView(o, false)}, nil
}

func storagePutObject(ctx context.Context, s *Service, c *Call) (any, error) {
	var in storageArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	o, err := models.GetObject(ctx, s.DB, in.ProjectID, in.ObjectID)
	if err != nil {
		return nil, err
	}
	if o.Status != models.StorageUploading {
		return nil, toolErr(CodeConflict, "/object_id", "object %s is %s; only uploading objects take bytes", o.ID, o.Status)
	}
	out, err := s.uploadInstructions(ctx, o)
	if err != nil {
		return nil, err
	}
	out["object_id"] = o.ID
	return out, nil
}

func storageCompleteUpload(ctx context.Context, s *Service, c *Call) (any, error) {
	var in storageArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	o, err := models.GetObject(ctx, s.DB, in.ProjectID, in.ObjectID)
	if err != nil {
		return nil, err
	}
	return s.completeUpload(ctx, o)
}

// pointAt re-points a tool error at field.
func pointAt(err error, field string) error {
	if te, ok := err.(*ToolError); ok {
		cp := *te
		cp.Pointer = field
		return &cp
	}
	return err
}

// objectView is an object as tools show it.
func objectView(o models.StorageObject, compact bool) map[string]any {
	v := map[string]any{"object_id": o.ID, "name": o.Name, "version": o.Version, "kind": o.Kind, "status": o.Status,
		"sha256": o.SHA256, "size_bytes": o.SizeBytes, "pinned": o.Pinned, "expires_at": o.ExpiresAt}
	if compact {
		return v
	}
	v["path"], v["content_type"], v["producing_experiment_id"], v["producing_run"] = o.Path, o.ContentType, o.ProducingExperimentID, o.ProducingRun
	v["source_uri"], v["notes"], v["created_at"], v["completed_at"], v["deleted_at"] = o.SourceURI, o.Notes, o.CreatedAt, o.CompletedAt, o.DeletedAt
	if o.LastError != "" {
		v["last_error"] = o.LastError
	}
	return v
}

// presigns reports whether the blob store hands out direct signed URLs.
func (s *Service) presigns() bool {
	_, ok := s.Blobs.(blobstore.Presigner)
	return ok
}
