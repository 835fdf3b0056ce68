package research

import (
	"context"
	"net/http"
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
	out := storageSubmitResp{ObjectID: got.ID, Name: got.Name, Version: got.Version, Status: got.Status, Created: created, Object: objectView(got)}
	if got.Status != models.StorageUploading {
		out.UploadRequired = false
		out.Note = "these bytes are already stored; nothing to upload"
		return out, nil
	}
	if got.Path != in.Path { // an idempotent replay from another path uploads from this one
		got.Path = in.Path
	}
	up, err := s.uploadInstructions(ctx, got)
	if err != nil {
		return nil, err
	}
	out.UploadRequired, out.Run, out.Upload, out.Complete, out.Note = true, up.Run, &up.Upload, &up.Complete, up.Note
	return out, nil
}

// uploadInstructions issues a fresh upload token for an uploading object
// and answers the one-line command: PUT the bytes, then POST completion.
func (s *Service) uploadInstructions(ctx context.Context, o models.StorageObject) (storageUploadPlan, error) {
	token := "su_" + models.RandomHex(32)
	expires := s.now().Add(uploadTTL)
	attemptKey := uploadAttemptKey(o)
	if err := models.SetUploadToken(ctx, s.DB, o.ID, platform.HashSecret(token), attemptKey, expires); err != nil {
		return storageUploadPlan{}, err
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
			return storageUploadPlan{}, err
		}
		putURL = u
	}
	completeURL := base + StorageCompletePrefix + token
	return storageUploadPlan{
		Run:      "curl -sf -T '" + o.Path + "' '" + putURL + "' && curl -sf -X POST '" + completeURL + "'",
		Upload:   storageTransferResp{Method: http.MethodPut, URL: putURL, ExpiresAt: expires},
		Complete: storageTransferResp{Method: http.MethodPost, URL: completeURL, ExpiresAt: expires},
		Note:     "the object becomes available only when the uploaded bytes match sha256 and size_bytes; a mismatch is rejected and nothing is kept",
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
	return storageFetchResp{ObjectID: o.ID, Name: o.Name, Version: o.Version, SHA256: o.SHA256, SizeBytes: o.SizeBytes,
		Run:      "curl -sf -o '" + in.Path + "' '" + url + "'",
		Download: storageTransferResp{Method: http.MethodGet, URL: url, ExpiresAt: expires}, Object: objectView(fresh)}, nil
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
	return storageActionResp{ObjectID: o.ID, Action: in.Action, Status: o.Status, Object: objectView(o)}, nil
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
	up, err := s.uploadInstructions(ctx, o)
	if err != nil {
		return nil, err
	}
	return storagePutResp{UploadRequired: true, Run: up.Run, Upload: up.Upload, Complete: up.Complete, Note: up.Note, ObjectID: o.ID}, nil
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
	out, err := s.completeUpload(ctx, o)
	if err != nil {
		return nil, err
	}
	return out, nil
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
func objectView(o models.StorageObject) storageObjectResp {
	return storageObjectResp{ObjectID: o.ID, Name: o.Name, Version: o.Version, Kind: o.Kind, Status: o.Status,
		SHA256: o.SHA256, SizeBytes: o.SizeBytes, Pinned: o.Pinned, ExpiresAt: o.ExpiresAt,
		Path: o.Path, ContentType: o.ContentType, ProducingExperimentID: o.ProducingExperimentID, ProducingRun: o.ProducingRun,
		SourceURI: o.SourceURI, Notes: o.Notes, CreatedAt: o.CreatedAt, CompletedAt: o.CompletedAt, DeletedAt: o.DeletedAt,
		LastError: o.LastError}
}

// objectCompactView is an object as storage.find's compact rows show it.
func objectCompactView(o models.StorageObject) storageCompactObjectResp {
	return storageCompactObjectResp{ObjectID: o.ID, Name: o.Name, Version: o.Version, Kind: o.Kind, Status: o.Status,
		SHA256: o.SHA256, SizeBytes: o.SizeBytes, Pinned: o.Pinned, ExpiresAt: o.ExpiresAt}
}

// presigns reports whether the blob store hands out direct signed URLs.
func (s *Service) presigns() bool {
	_, ok := s.Blobs.(blobstore.Presigner)
	return ok
}
