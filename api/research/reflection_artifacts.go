package research

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// reflectionArtifactSubmit is artifact.submit for target_type reflection:
// a lens doc names a roster lens; the artifact joins the wave's current attempt.
func (s *Service) reflectionArtifactSubmit(ctx context.Context, c *Call, in artifactArgs) (any, error) {
	r, err := s.reflectionRow(ctx, c, in.ProjectID, in.TargetID)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) && te.Pointer == "/reflection_id" {
			te.Pointer = "/target_id"
		}
		return nil, err
	}
	st, err := s.reflectionState(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if st.Status.Terminal() {
		return nil, toolErr(CodeGateBlocked, "/target_id", "the reflection is %s; it takes no more artifacts", st.Status)
	}
	if in.Role == string(rg.EvLensDocs) {
		found := false
		for _, l := range st.Lenses {
			found = found || l.ID == in.LensID
		}
		if !found {
			return nil, toolErr(CodeInvalidInput, "/lens_id", "a reflection_lens_doc needs the lens_id of a roster lens (next: %s)", st.NextLens())
		}
	} else if in.LensID != "" {
		return nil, invalid("/lens_id", "lens_id belongs only to role reflection_lens_doc")
	}
	token := "up_" + models.RandomHex(32)
	a := models.Artifact{ID: models.NewID("art_"), ProjectID: r.ProjectID, TargetType: targetReflection, TargetID: r.ID, Role: in.Role,
		LensID: in.LensID, Path: in.Path, Title: in.Title, Attempt: st.Attempt, UploadTokenHash: platform.HashSecret(token),
		UploadExpiresAt: s.now().Add(uploadTTL)}
	a.BlobKey = "research/" + r.ProjectID + "/artifacts/" + a.ID
	if err := models.CreateArtifact(ctx, s.DB, &a); err != nil {
		return nil, err
	}
	url := s.publicBase(ctx) + UploadPathPrefix + token
	out := reflectionArtifactResp{ArtifactID: a.ID, Role: a.Role, Path: a.Path, AttemptIndex: a.Attempt, LensID: a.LensID,
		Run: "curl -sf -T '" + a.Path + "' '" + url + "'",
		Upload: reflectionArtifactUpload{Method: http.MethodPut, URL: url, Headers: map[string]string{"Content-Type": "application/octet-stream"},
			ExpiresAt: a.UploadExpiresAt},
		Note: "the artifact is evidence only once these bytes are uploaded; the token is single-use"}
	if rg.Gated(a.Role) {
		out.MaxBytes = maxReflectionArtifactBytes
	}
	return out, nil
}

const maxReflectionArtifactBytes = 16 << 10

// uploadReflection stores a reflection artifact's bytes once per token,
// checks a gated role's content (a change spec also against the wave's
// corpus and the project's claims) and signals the wave.
func (s *Service) uploadReflection(c *gin.Context, a models.Artifact) {
	ctx := c.Request.Context()
	max := s.Config.MaxBodyBytes
	if rg.Gated(a.Role) {
		max = maxReflectionArtifactBytes
	}
	// Each upload attempt writes a key of its own; the row is bound to
	// it only if this attempt wins the compare-and-set below, so a
	// concurrent PUT with the same token cannot swap the bytes checked.
	key := artifactAttemptKey(a)
	info, err := s.Blobs.Put(ctx, key, c.Request.Body, max)
	if err != nil {
		rest.Abort(c, http.StatusRequestEntityTooLarge, CodeInvalidInput, "upload refused: "+err.Error())
		return
	}
	st, err := s.reflectionState(ctx, a.TargetID)
	if err != nil {
		abortUpload(c, err, "the reflection's workflow is not reachable; retry")
		return
	}
	if st.Status.Terminal() {
		rest.Abort(c, http.StatusConflict, CodeGateBlocked, "the reflection is "+string(st.Status)+"; it takes no more artifacts")
		return
	}
	var problems []string
	if rg.Gated(a.Role) {
		text, rerr := s.readArtifact(ctx, models.Artifact{BlobKey: key, UploadedAt: &a.CreatedAt}, max)
		if rerr != nil {
			rest.Unavailable(c, "blob store unavailable; retry")
			return
		}
		problems = rg.CheckArtifact(a.Role, []byte(text))
		if a.Role == string(rg.EvChangeSpec) && len(problems) == 0 {
			problems = s.changeSpecProblems(ctx, a.ProjectID, st.Corpus, []byte(text))
		}
	}
	now := time.Now().UTC()
	ref := wf.ReflectionArtifact{LensID: a.LensID, ArtifactRef: wf.ArtifactRef{ArtifactID: a.ID, Role: a.Role, Path: a.Path,
		Attempt: a.Attempt, SHA256: info.SHA256, Size: info.Size, Valid: len(problems) == 0, Problems: problems}}
	var landed *notice
	err = s.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&models.Artifact{}).Where("id = ? AND uploaded_at IS NULL", a.ID).Updates(map[string]any{
			"blob_key": key, "sha256": info.SHA256, "size": info.Size, "valid": len(problems) == 0,
			"problems": strings.Join(problems, "\n"), "uploaded_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return &ToolError{Code: CodeConflict, Message: "this upload token was already used"}
		}
		var nerr error
		landed, nerr = s.notifyReflection(ctx, a.TargetID, wf.ArtifactLandedSignal, a.ID, ref)
		return nerr
	})
	if err != nil {
		_ = s.Blobs.Delete(context.WithoutCancel(ctx), key)
		abortUpload(c, err, "could not record the upload; retry with a new artifact.submit")
		return
	}
	landed.answer(ctx, nil)
	c.JSON(http.StatusOK, reflectionUploadedResp{ArtifactID: a.ID, Role: a.Role, LensID: a.LensID, Path: a.Path, SHA256: info.SHA256,
		SizeBytes: info.Size, Valid: len(problems) == 0, Problems: problems})
}

// changeSpecProblems checks what publish will apply: changed claims exist
// in the project, and follow-ups depend only on corpus experiments and
// take names no experiment of the project has.
func (s *Service) changeSpecProblems(ctx context.Context, projectID string, corpus []string, content []byte) []string {
	spec, _ := rg.ParseChangeSpec(content)
	var p []string
	for _, ch := range spec.ClaimChanges {
		if ch.ClaimID == "" {
			continue
		}
		if ok, _ := models.ClaimExists(ctx, s.DB, projectID, ch.ClaimID); !ok {
			p = append(p, "claim_changes names unknown claim "+ch.ClaimID)
		}
	}
	in := map[string]bool{}
	for _, id := range corpus {
		in[id] = true
	}
	for _, f := range spec.FollowUps {
		for _, d := range f.DependsOn {
			if !in[d] {
				p = append(p, "follow-up "+f.Name+" depends on "+d+", which is not a corpus experiment")
			}
		}
		if taken, err := models.ExperimentNamed(ctx, s.DB, projectID, f.Name); err == nil {
			p = append(p, "follow-up "+f.Name+" has the name of experiment "+taken.ID+"; name it differently")
		}
	}
	return p
}
