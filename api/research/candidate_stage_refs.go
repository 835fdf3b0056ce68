package research

import (
	"context"
	"errors"

	models "github.com/gatehouse/gatehouse/models/research"
)

// stageEvaluatorReceipt is the stage kind whose reference is an evaluator
// receipt: an uploaded artifact attesting an evaluation of the candidate.
const stageEvaluatorReceipt = "evaluator_receipt"

// stagedRef is what a candidate.stage reference names, once checked: the
// stored digest content_sha256 must equal and, for an evaluator receipt,
// the one manifest_sha256 must equal. Empty: nothing stored to check
// against.
type stagedRef struct {
	ContentSHA256  string
	ManifestSHA256 string
}

// checkStageRef refuses a candidate.stage whose reference does not exist
// in the project as evidence or whose given digests do not match what is
// stored: an artifact (or an evaluator receipt, an uploaded artifact) must
// have landed, a storage object must be available. For an artifact or a
// storage object content_sha256 is the digest of its stored bytes. An
// evaluator receipt is the manifest of an evaluation, so manifest_sha256
// is the digest of the receipt's stored bytes, and content_sha256 that of
// the content it evaluated: the candidate's (stageContent).
func (s *Service) checkStageRef(ctx context.Context, projectID string, in candidateArgs) error {
	ref, err := s.stageRef(ctx, projectID, in)
	if err != nil {
		return err
	}
	if in.StageKind == stageEvaluatorReceipt && in.ContentSHA256 != "" && ref.ContentSHA256 == "" {
		return toolErr(CodeInvalidInput, "/content_sha256", "no stored digest of candidate %s's content to check content_sha256 against "+
			"(its source has none and it was submitted without expected_sha256); omit content_sha256", in.CandidateID)
	}
	if in.ContentSHA256 != "" && in.ContentSHA256 != ref.ContentSHA256 {
		return toolErr(CodeInvalidInput, "/content_sha256", "content_sha256 %s does not match the stored content (%s)", in.ContentSHA256, ref.ContentSHA256)
	}
	if in.StageKind == stageEvaluatorReceipt && in.ManifestSHA256 != "" && in.ManifestSHA256 != ref.ManifestSHA256 {
		return toolErr(CodeInvalidInput, "/manifest_sha256", "manifest_sha256 %s does not match the receipt's bytes (%s)", in.ManifestSHA256, ref.ManifestSHA256)
	}
	return nil
}

// stageRef finds the reference in the project and the digests its given
// hashes are checked against (a receipt's content digest only when one
// is given, as it costs the candidate's lookups).
func (s *Service) stageRef(ctx context.Context, projectID string, in candidateArgs) (stagedRef, error) {
	switch in.StageKind {
	case "artifact", stageEvaluatorReceipt:
		a, err := models.ArtifactByID(ctx, s.DB, in.StageRef)
		if errors.Is(err, models.ErrNoRecord) || (err == nil && a.ProjectID != projectID) {
			return stagedRef{}, toolErr(CodeNotFound, "/stage_ref", "no artifact %s in this project", in.StageRef)
		}
		if err != nil {
			return stagedRef{}, err
		}
		if a.UploadedAt == nil {
			return stagedRef{}, toolErr(CodeInvalidInput, "/stage_ref", "artifact %s has no uploaded bytes yet; upload them first", a.ID)
		}
		if in.StageKind == "artifact" {
			return stagedRef{ContentSHA256: a.SHA256}, nil
		}
		ref := stagedRef{ManifestSHA256: a.SHA256}
		if in.ContentSHA256 != "" {
			ref.ContentSHA256, err = s.stageContent(ctx, projectID, in.CandidateID)
		}
		return ref, err
	case "storage_object":
		o, err := models.StorageObjectByID(ctx, s.DB, in.StageRef)
		if errors.Is(err, models.ErrNoRecord) || (err == nil && o.ProjectID != projectID) {
			return stagedRef{}, toolErr(CodeNotFound, "/stage_ref", "no storage object %s in this project", in.StageRef)
		}
		if err != nil {
			return stagedRef{}, err
		}
		if o.Status != models.StorageAvailable {
			return stagedRef{}, toolErr(CodeInvalidInput, "/stage_ref", "storage object %s is %s, not available", o.ID, o.Status)
		}
		return stagedRef{ContentSHA256: o.SHA256}, nil
	}
	return stagedRef{}, invalid("/stage_kind", "stage_kind must be artifact, storage_object or evaluator_receipt")
}

// stageContent is the stored digest of candidate candidateID's content,
// what an evaluator receipt of it evaluated: the bytes of its source
// artifact (landed) or storage object (available) in the project, else
// the expected_sha256 it was submitted with (an experiment workspace has
// no stored bytes); empty when neither is known.
func (s *Service) stageContent(ctx context.Context, projectID, candidateID string) (string, error) {
	c, err := models.CandidateInProject(ctx, s.DB, projectID, candidateID)
	if err != nil {
		return "", err
	}
	switch c.SourceKind {
	case "artifact":
		a, err := models.ArtifactByID(ctx, s.DB, c.SourceRef)
		if err == nil && a.ProjectID == projectID && a.UploadedAt != nil {
			return a.SHA256, nil
		}
		if err != nil && !errors.Is(err, models.ErrNoRecord) {
			return "", err
		}
	case "storage_object":
		o, err := models.StorageObjectByID(ctx, s.DB, c.SourceRef)
		if err == nil && o.ProjectID == projectID && o.Status == models.StorageAvailable {
			return o.SHA256, nil
		}
		if err != nil && !errors.Is(err, models.ErrNoRecord) {
			return "", err
		}
	}
	return c.ExpectedSHA256, nil
}
