package research

import (
	"context"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// artifactTarget is what artifact.submit and the upload URL need of a
// review target: whether it still takes artifacts, which it takes, how
// a gated role's bytes are checked and what its workflow is told.
type artifactTarget interface {
	// closed is why the loaded target takes no more artifacts ("" while
	// it does).
	closed() string
	// attempt is the loaded target's current attempt, the one a new
	// artifact joins.
	attempt() int
	// accepts checks artifact.submit's arguments against the loaded
	// target (a reflection lens doc names a roster lens).
	accepts(in artifactArgs) error
	// artifactLimit is the byte cap of an upload of role (def unless the
	// role is gated, whose content is checked).
	artifactLimit(role string, def int64) (max int64, gated bool)
	// checkArtifact lists the problems of a gated artifact's content.
	checkArtifact(ctx context.Context, s *Service, a models.Artifact, content []byte) []string
	// landed is the payload signalled when an artifact's bytes land.
	landed(a models.Artifact, ref wf.ArtifactRef) any
	// lens is the lens id an artifact answer shows (nil: the key is absent).
	lens(a models.Artifact) *string
}

func (t experimentTarget) closed() string {
	if !t.st.Status.Terminal() {
		return ""
	}
	return "the experiment is " + string(t.st.Status) + "; it takes no more artifacts"
}

func (t experimentTarget) attempt() int { return t.st.Attempt }

func (experimentTarget) accepts(artifactArgs) error { return nil }

func (experimentTarget) artifactLimit(role string, def int64) (int64, bool) {
	if gates.Gated(role) {
		return gates.MaxGatedArtifactBytes, true
	}
	return def, false
}

func (experimentTarget) checkArtifact(_ context.Context, _ *Service, a models.Artifact, content []byte) []string {
	return gates.CheckArtifact(a.Role, content)
}

func (experimentTarget) landed(_ models.Artifact, ref wf.ArtifactRef) any { return ref }

func (experimentTarget) lens(models.Artifact) *string { return nil }

func (t reflectionTarget) closed() string {
	if !t.st.Status.Terminal() {
		return ""
	}
	return "the reflection is " + string(t.st.Status) + "; it takes no more artifacts"
}

func (t reflectionTarget) attempt() int { return t.st.Attempt }

func (t reflectionTarget) accepts(in artifactArgs) error {
	if in.Role == string(rg.EvLensDocs) {
		for _, l := range t.st.Lenses {
			if l.ID == in.LensID {
				return nil
			}
		}
		return toolErr(CodeInvalidInput, "/lens_id", "a reflection_lens_doc needs the lens_id of a roster lens (next: %s)", t.st.NextLens())
	}
	if in.LensID != "" {
		return invalid("/lens_id", "lens_id belongs only to role reflection_lens_doc")
	}
	return nil
}

func (reflectionTarget) artifactLimit(role string, def int64) (int64, bool) {
	if rg.Gated(role) {
		return maxReflectionArtifactBytes, true
	}
	return def, false
}

// checkArtifact checks a change spec also against the wave's corpus and
// the project's claims.
func (t reflectionTarget) checkArtifact(ctx context.Context, s *Service, a models.Artifact, content []byte) []string {
	problems := rg.CheckArtifact(a.Role, content)
	if a.Role == string(rg.EvChangeSpec) && len(problems) == 0 {
		problems = s.changeSpecProblems(ctx, a.ProjectID, t.st.Corpus, content)
	}
	return problems
}

func (reflectionTarget) landed(a models.Artifact, ref wf.ArtifactRef) any {
	return wf.ReflectionArtifact{LensID: a.LensID, ArtifactRef: ref}
}

func (reflectionTarget) lens(a models.Artifact) *string { return &a.LensID }

// artifactSubmitAnswer is artifact.submit's answer. Fields are in the
// order of their JSON keys, as the map it replaced encoded them.
type artifactSubmitAnswer struct {
	ArtifactID string         `json:"artifact_id"`
	Attempt    int            `json:"attempt_index"`
	LensID     *string        `json:"lens_id,omitempty"`
	MaxBytes   int64          `json:"max_bytes,omitempty"`
	Note       string         `json:"note"`
	Path       string         `json:"path"`
	Role       string         `json:"role"`
	Run        string         `json:"run"`
	Upload     artifactUpload `json:"upload"`
}

// artifactUpload is how artifact.submit's caller uploads the bytes.
type artifactUpload struct {
	ExpiresAt time.Time         `json:"expires_at"`
	Headers   map[string]string `json:"headers"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
}

// artifactLandedAnswer is the upload URL's answer.
type artifactLandedAnswer struct {
	ArtifactID string   `json:"artifact_id"`
	LensID     *string  `json:"lens_id,omitempty"`
	Path       string   `json:"path"`
	Problems   []string `json:"problems"`
	Role       string   `json:"role"`
	SHA256     string   `json:"sha256"`
	Size       int64    `json:"size_bytes"`
	Valid      bool     `json:"valid"`
}
