package research

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	models "github.com/gatehouse/gatehouse/models/research"
)

// stagedOutput is one pulled path whose bytes were streamed into the blob
// store under a key of their own, not yet an object.
type stagedOutput struct {
	path string
	info blobstore.Info
}

func sandboxPullOutputs(ctx context.Context, s *Service, c *Call) (any, error) {
	in, sb, insp, err := s.sandboxFor(ctx, c)
	if err != nil {
		return nil, err
	}
	if !s.Config.Features.Storage {
		return nil, toolErr(CodeUnsupported, "/paths", "sandbox.pull_outputs copies files into storage objects, and storage is off "+
			"in this deployment (GATEHOUSE_FEATURE_STORAGE=false): copy the files over SSH, or turn storage on")
	}
	if !sb.Active() {
		return nil, toolErr(CodeConflict, "/sandbox_uid", "sandbox %s is %s; its working directory is gone", sb.UID, sb.Status)
	}
	limit := s.Config.MaxBodyBytes
	if limit <= 0 {
		limit = 64 << 20
	}
	// Stream every path into the blob store before any object is made, so
	// a refused path makes none (and its staged bytes are deleted). No
	// file is held in memory: a copy holds one chunk at a time.
	staged := make([]stagedOutput, 0, len(in.Paths))
	for i, p := range in.Paths {
		st, err := s.stageOutput(ctx, insp, sb, p, limit)
		if err != nil {
			for _, done := range staged {
				s.deleteBlobs(ctx, done.info.Key)
			}
			return nil, pullError(err, i, p)
		}
		staged = append(staged, st)
	}
	outputs := make([]sandboxPulledResp, 0, len(staged))
	for _, st := range staged {
		o, err := s.storeOutput(ctx, c, sb, st)
		if err != nil {
			return nil, err
		}
		outputs = append(outputs, sandboxPulledResp{Path: st.path, ObjectID: o.ID, Name: o.Name, Version: o.Version,
			SHA256: o.SHA256, SizeBytes: o.SizeBytes, Status: o.Status, ExperimentID: o.ProducingExperimentID})
	}
	return sandboxPullResp{SandboxUID: sb.UID, Outputs: outputs, Count: len(outputs)}, nil
}

// pullError is the answer for path p (index i) that could not be pulled.
func pullError(err error, i int, p string) error {
	at := fmt.Sprintf("/paths/%d", i)
	switch {
	case errors.Is(err, sandbox.ErrPathOutside):
		return toolErr(CodeInvalidInput, at, "path %q leaves the sandbox working directory; refused", p)
	case errors.Is(err, sandbox.ErrNotFound):
		return toolErr(CodeNotFound, at, "no regular file %q in the working directory", p)
	case errors.As(err, new(*ToolError)):
		return err
	}
	return toolErr(CodeInvalidInput, at, "%v", err)
}

// stageOutput streams path p of sandbox sb into a fresh blob key, which
// no token or URL ever names, and answers what landed there.
func (s *Service) stageOutput(ctx context.Context, insp sandboxReader, sb models.Sandbox, p string, limit int64) (stagedOutput, error) {
	rc, err := insp.Open(ctx, sb.UID, p, limit)
	if err != nil {
		return stagedOutput{}, err
	}
	defer func() { _ = rc.Close() }()
	key := "research/" + sb.ProjectID + "/storage/pull-" + sb.UID + "-" + models.RandomHex(12)
	info, err := s.Blobs.Put(ctx, key, rc, limit)
	if err != nil {
		s.deleteBlobs(ctx, key)
		return stagedOutput{}, err
	}
	return stagedOutput{path: p, info: info}, nil
}

// storeOutput makes staged bytes an available storage object linked to
// the sandbox's experiment, and records the pull. Bytes a live object
// already holds are not kept twice: the staged copy is deleted.
func (s *Service) storeOutput(ctx context.Context, c *Call, sb models.Sandbox, st stagedOutput) (models.StorageObject, error) {
	p := st.path
	o := models.StorageObject{ID: models.NewID("obj_"), ProjectID: sb.ProjectID, Name: outputName(sb.UID, p), Kind: "other", Path: p,
		SHA256: st.info.SHA256, SizeBytes: st.info.Size, ProducingExperimentID: sb.ExperimentID, ProducingRun: sb.UID,
		SourceURI: "sandbox://" + sb.UID + "/" + strings.TrimPrefix(path.Clean(p), "/"), CreatedBy: c.Principal.CredentialID,
		BlobKey: st.info.Key}
	got, _, err := models.SubmitObject(ctx, s.DB, o, s.now(), s.Config.StorageRetention)
	if err != nil {
		s.deleteBlobs(ctx, st.info.Key)
		return got, err
	}
	if got.Status != models.StorageUploading {
		s.deleteBlobs(ctx, st.info.Key) // a live object already holds these bytes
	} else {
		// Gatehouse wrote and hashed these bytes itself (the same digest
		// and size the row declares): they are bound as they are.
		if err := models.BeginCompletion(ctx, s.DB, got.ID); err != nil {
			return got, err
		}
		var won bool
		if got, won, err = models.BindCompletion(ctx, s.DB, got.ID, st.info.Key, s.now(), s.Config.StorageRetention); err != nil {
			return got, err
		}
		if !won {
			s.deleteBlobs(ctx, st.info.Key)
		}
	}
	return got, models.RecordPull(ctx, s.DB, models.SandboxPull{SandboxUID: sb.UID, Path: path.Clean(p), SHA256: got.SHA256, ObjectID: got.ID})
}
