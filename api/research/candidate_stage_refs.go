package research

import (
	"context"
	"errors"

	models "github.com/gatehouse/gatehouse/models/research"
)

// stagedRef is what a candidate.stage reference names, once checked.
type stagedRef struct {
	SHA256 string
}

// checkStageRef refuses a candidate.stage whose reference does not exist
// in the project as evidence or whose given digests do not match it: an
// artifact (or an evaluator receipt, an uploaded artifact) must have
// landed, a storage object must be available; content_sha256 (and, for a
// receipt, manifest_sha256) must equal the stored bytes' digest.
func (s *Service) checkStageRef(ctx context.Context, projectID string, in candidateArgs) error {
	var ref stagedRef
	switch in.StageKind {
	case "artifact", "evaluator_receipt":
		a, err := models.ArtifactByID(ctx, s.DB, in.StageRef)
		if errors.Is(err, models.ErrNoRecord) || (err == nil && a.ProjectID != projectID) {
			return toolErr(CodeNotFound, "/stage_ref", "no artifact %s in this project", in.StageRef)
		}
		if err != nil {
			return err
		}
		if a.UploadedAt == nil {
			return toolErr(CodeInvalidInput, "/stage_ref", "artifact %s has no uploaded bytes yet; upload them first", a.ID)
		}
		ref.SHA256 = a.SHA256
	case "storage_object":
		o, err := models.StorageObjectByID(ctx, s.DB, in.StageRef)
		if errors.Is(err, models.ErrNoRecord) || (err == nil && o.ProjectID != projectID) {
			return toolErr(CodeNotFound, "/stage_ref", "no storage object %s in this project", in.StageRef)
		}
		if err != nil {
			return err
		}
		if o.Status != models.StorageAvailable {
			return toolErr(CodeInvalidInput, "/stage_ref", "storage object %s is %s, not available", o.ID, o.Status)
		}
		ref.SHA256 = o.SHA256
	default:
		return invalid("/stage_kind", "stage_kind must be artifact, storage_object or evaluator_receipt")
	}
	if in.ContentSHA256 != "" && in.ContentSHA256 != ref.SHA256 {
		return toolErr(CodeInvalidInput, "/content_sha256", "content_sha256 %s does not match the stored bytes (%s)", in.ContentSHA256, ref.SHA256)
	}
	if in.StageKind == "evaluator_receipt" && in.ManifestSHA256 != "" && in.ManifestSHA256 != ref.SHA256 {
		return toolErr(CodeInvalidInput, "/manifest_sha256", "manifest_sha256 %s does not match the receipt's bytes (%s)", in.ManifestSHA256, ref.SHA256)
	}
	return nil
}
