package research

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// uploadTTL is how long an upload token is valid.
const uploadTTL = 15 * time.Minute

// UploadPathPrefix is where upload tokens are presented (PUT).
const UploadPathPrefix = "/api/artifacts/u/"

func init() {
	registerFamily("artifact",
		Tool{Name: "artifact.submit", Handler: artifactSubmit, Description: "Register an artifact and get a one-line upload command; the uploaded bytes are the evidence.",
			Schema: object([]string{"project_id", "target_type", "target_id", "role", "path"}, props{"project_id": projectID,
				"target_type": enum("target type", targetExperiment, targetReflection), "target_id": strLen("target id", 1, 64),
				"role":    map[string]any{"type": "string", "pattern": "^[a-z][a-z0-9_]{1,63}$", "description": "plan, result, report, graph, or another role"},
				"path":    map[string]any{"type": "string", "minLength": 1, "maxLength": 512, "pattern": `^[^\x00'"]+$`, "description": "local path of the file to upload"},
				"lens_id": strLen("lens id (reflections)", 1, 64), "title": strLen("title", 0, 400)})},
		Tool{Name: "artifact.find", Handler: artifactFind, ReadOnly: true, Description: "Find artifacts; include_content returns their bytes as text.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID, "artifact_id": strLen("artifact id", 1, 64),
				"artifact_ids": strList("artifact ids", 50), "include_content": boolean("include content (default false)"),
				"target_type": enum("target type", targetExperiment, targetReflection), "target_id": strLen("target id", 1, 64), "role": strLen("role", 1, 64)})},
	)
}

type artifactArgs struct {
	ProjectID      string   `json:"project_id"`
	TargetType     string   `json:"target_type"`
	TargetID       string   `json:"target_id"`
	Role           string   `json:"role"`
	Path           string   `json:"path"`
	LensID         string   `json:"lens_id"`
	Title          string   `json:"title"`
	ArtifactID     string   `json:"artifact_id"`
	ArtifactIDs    []string `json:"artifact_ids"`
	IncludeContent bool     `json:"include_content"`
}

func artifactSubmit(ctx context.Context, s *Service, c *Call) (any, error) {
	var in artifactArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	kind, err := reviewTargetOf(in.TargetType)
	if err != nil {
		return nil, err
	}
	p, t, err := kind.resolve(ctx, s, c, in.ProjectID, in.TargetID)
	if err != nil {
		return nil, err
	}
	if why := t.closed(); why != "" {
		return nil, toolErr(CodeGateBlocked, "/target_id", "%s", why)
	}
	if err := t.accepts(in); err != nil {
		return nil, err
	}
	typ, id := t.ref()
	token := "up_" + models.RandomHex(32)
	a := models.Artifact{ID: models.NewID("art_"), ProjectID: p.ID, TargetType: typ, TargetID: id, Role: in.Role,
		LensID: in.LensID, Path: in.Path, Title: in.Title, Attempt: t.attempt(), UploadTokenHash: platform.HashSecret(token),
		UploadExpiresAt: s.now().Add(uploadTTL)}
	a.BlobKey = "research/" + p.ID + "/artifacts/" + a.ID
	if err := models.CreateArtifact(ctx, s.DB, &a); err != nil {
		return nil, err
	}
	url := s.publicBase(ctx) + UploadPathPrefix + token
	out := artifactSubmitAnswer{ArtifactID: a.ID, Role: a.Role, Path: a.Path, Attempt: a.Attempt, LensID: t.lens(a),
		Run:    "curl -sf -T '" + a.Path + "' '" + url + "'",
		Upload: artifactUpload{Method: "PUT", URL: url, Headers: map[string]string{"Content-Type": "application/octet-stream"}, ExpiresAt: a.UploadExpiresAt},
		Note:   "the artifact is evidence only once these bytes are uploaded; the token is single-use"}
	if max, gated := t.artifactLimit(a.Role, 0); gated {
		out.MaxBytes = max
	}
	return out, nil
}

func artifactView(a models.Artifact) artifactViewResp {
	v := artifactViewResp{ArtifactID: a.ID, TargetType: a.TargetType, TargetID: a.TargetID, Role: a.Role, Path: a.Path,
		Title: a.Title, AttemptIndex: a.Attempt, Uploaded: a.UploadedAt != nil, CreatedAt: a.CreatedAt}
	if a.UploadedAt != nil {
		v.SHA256, v.SizeBytes, v.UploadedAt, v.Valid = ptr(a.SHA256), ptr(a.Size), a.UploadedAt, ptr(a.Valid)
		if a.Problems != "" {
			v.Problems = strings.Split(a.Problems, "\n")
		}
	}
	return v
}

// readArtifact returns up to max bytes of an uploaded artifact.
func (s *Service) readArtifact(ctx context.Context, a models.Artifact, max int64) (string, error) {
	if a.UploadedAt == nil {
		return "", nil
	}
	return s.readBlob(ctx, a.BlobKey, max)
}

// readBlob returns up to max bytes of the blob stored under key.
func (s *Service) readBlob(ctx context.Context, key string, max int64) (string, error) {
	rc, err := s.Blobs.Open(ctx, key)
	if err != nil {
		return "", err
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(io.LimitReader(rc, max))
	return string(b), err
}

func artifactFind(ctx context.Context, s *Service, c *Call) (any, error) {
	var in artifactArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if in.ArtifactID != "" {
		in.ArtifactIDs = append(in.ArtifactIDs, in.ArtifactID)
	}
	as, err := models.FindArtifacts(ctx, s.DB, models.ArtifactFilter{ProjectID: in.ProjectID, IDs: in.ArtifactIDs,
		TargetType: in.TargetType, TargetID: in.TargetID, Role: in.Role, Limit: 200})
	if err != nil {
		return nil, err
	}
	out := make([]artifactViewResp, 0, len(as))
	for _, a := range as {
		v := artifactView(a)
		if in.IncludeContent && a.UploadedAt != nil {
			text, err := s.readArtifact(ctx, a, 64<<10)
			if err != nil {
				return nil, err
			}
			v.Content = &text
		}
		out = append(out, v)
	}
	return artifactsAnswer{Artifacts: out}, nil
}

// artifactAttemptKey is a fresh blob key for one upload attempt of an
// artifact: the row's blob key becomes it only when that attempt records
// the upload, so the bytes a reader gets are the bytes that were hashed
// and checked.
func artifactAttemptKey(a models.Artifact) string {
	return a.BlobKey + ".upload-" + models.RandomHex(12)
}

// artifactsAnswer is artifact.find's answer.
type artifactsAnswer struct {
	Artifacts []artifactViewResp `json:"artifacts"`
}
