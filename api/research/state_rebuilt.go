package research

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// rebuiltExperimentState is the state of an experiment whose workflow
// Temporal no longer knows and which stored no final state (it ended
// before final states were stored): the database mirror's status, attempt,
// revision and conclusion, with the artifacts that landed for that attempt.
// Reviews and transition history lived only in the workflow.
func (s *Service) rebuiltExperimentState(ctx context.Context, id string) (wf.ExperimentState, error) {
	e, err := models.ExperimentByID(ctx, s.DB, id)
	if errors.Is(err, models.ErrNoRecord) {
		return wf.ExperimentState{}, toolErr(CodeNotFound, "/experiment_id", "no experiment %s", id)
	}
	if err != nil {
		return wf.ExperimentState{}, err
	}
	arts, err := models.LandedArtifacts(ctx, s.DB, targetExperiment, id, e.Attempt)
	if err != nil {
		return wf.ExperimentState{}, err
	}
	st := wf.ExperimentState{ProjectID: e.ProjectID, ExperimentID: e.ID, Name: e.Name, Status: gates.Status(e.Status),
		Attempt: e.Attempt, Revision: e.Revision, Conclusion: e.Conclusion, Artifacts: map[string]wf.ArtifactRef{},
		Reviews: map[string]wf.ReviewState{}, History: []wf.TransitionRecord{}}
	for _, a := range arts {
		st.Artifacts[a.Role] = artifactRef(a)
	}
	return st, nil
}

// rebuiltReflectionState is rebuiltExperimentState for a reflection wave:
// its row's status, attempt, revision, roster, corpus and publish result,
// with the artifacts that landed for that attempt.
func (s *Service) rebuiltReflectionState(ctx context.Context, id string) (wf.ReflectionState, error) {
	r, err := models.ReflectionByID(ctx, s.DB, id)
	if errors.Is(err, models.ErrNoRecord) {
		return wf.ReflectionState{}, toolErr(CodeNotFound, "/reflection_id", "no reflection %s", id)
	}
	if err != nil {
		return wf.ReflectionState{}, err
	}
	arts, err := models.LandedArtifacts(ctx, s.DB, targetReflection, id, r.Attempt)
	if err != nil {
		return wf.ReflectionState{}, err
	}
	st := wf.ReflectionState{ProjectID: r.ProjectID, ReflectionID: r.ID, Title: r.Title, Status: rg.Status(r.Status),
		Attempt: r.Attempt, Revision: r.Revision, Lenses: decodeLenses(r.LensesJSON), Corpus: []string{},
		Artifacts: map[string]wf.ArtifactRef{}, Reviews: map[string]wf.ReviewState{}, History: []wf.TransitionRecord{}}
	for _, e := range decodeCorpus(r.CorpusJSON) {
		st.Corpus = append(st.Corpus, e.ExperimentID)
	}
	for _, a := range arts {
		st.Artifacts[wf.ArtifactKey(a.Role, a.LensID)] = artifactRef(a)
	}
	if r.PublishJSON != "" {
		var pub wf.PublishResult
		if json.Unmarshal([]byte(r.PublishJSON), &pub) == nil {
			st.Published = &pub
		}
	}
	return st, nil
}

func artifactRef(a models.Artifact) wf.ArtifactRef {
	ref := wf.ArtifactRef{ArtifactID: a.ID, Role: a.Role, Path: a.Path, Attempt: a.Attempt, SHA256: a.SHA256, Size: a.Size, Valid: a.Valid}
	if a.UploadedAt != nil {
		ref.UploadedAt = a.UploadedAt.UTC()
	}
	if a.Problems != "" {
		ref.Problems = strings.Split(a.Problems, "\n")
	}
	return ref
}
