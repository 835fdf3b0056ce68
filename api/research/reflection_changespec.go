package research

import (
	"context"

	models "github.com/gatehouse/gatehouse/models/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// maxReflectionArtifactBytes caps a reflection artifact upload.
const maxReflectionArtifactBytes = 16 << 10

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
