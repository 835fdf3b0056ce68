package research

import (
	"context"
	"encoding/json"
	"errors"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// corpusEntry is one finished experiment as snapshotted at reflection.create.
type corpusEntry struct {
	ExperimentID     string `json:"experiment_id"`
	Name             string `json:"name"`
	Intent           string `json:"intent"`
	Status           string `json:"status"`
	Conclusion       string `json:"conclusion"`
	ReportArtifactID string `json:"report_artifact_id,omitempty"`
	GraphArtifactID  string `json:"graph_artifact_id,omitempty"`
	ResultArtifactID string `json:"result_artifact_id,omitempty"`
	// BaseSHA is the project's central sha when the wave opened.
	BaseSHA string `json:"base_sha"`
}

// reflectionRow loads a wave of a project the caller may use.
func (s *Service) reflectionRow(ctx context.Context, c *Call, projectID, id string) (models.Reflection, error) {
	if _, err := s.project(ctx, c, projectID); err != nil {
		return models.Reflection{}, err
	}
	r, err := models.ReflectionInProject(ctx, s.DB, projectID, id)
	if errors.Is(err, models.ErrNoRecord) {
		return r, toolErr(CodeNotFound, "/reflection_id", "no reflection %s in project %s", id, projectID)
	}
	return r, err
}

// latestReflection returns the project's open wave, else its newest (ok false if none).
func (s *Service) latestReflection(ctx context.Context, projectID string) (models.Reflection, bool, error) {
	r, err := models.LatestReflection(ctx, s.DB, projectID)
	if errors.Is(err, models.ErrNoRecord) {
		return r, false, nil
	}
	return r, err == nil, err
}

// reflectionState reads the wave's state: its workflow's query (the
// authority for its gate) while it runs, its stored final state once it
// ended.
func (s *Service) reflectionState(ctx context.Context, id string) (wf.ReflectionState, error) {
	st, _, err := s.waveState(ctx, id)
	return st, err
}

// waveState is reflectionState; final says the wave's workflow ended, so
// the answer will not change.
func (s *Service) waveState(ctx context.Context, id string) (wf.ReflectionState, bool, error) {
	var st wf.ReflectionState
	final, err := s.workflowState(ctx, wf.ReflectionWorkflowID(id), wf.StateQuery, &st)
	if errors.Is(err, errWorkflowGone) {
		st, err = s.rebuiltReflectionState(ctx, id)
		return st, true, err
	}
	return st, final, err
}

// notifyReflection tells the wave's workflow about a record the caller
// writes (see notice).
func (s *Service) notifyReflection(ctx context.Context, id, signal, recordID string, legacy any) (*notice, error) {
	n, err := s.sendNotice(ctx, wf.ReflectionWorkflowID(id), signal, recordID, legacy)
	return n, closedSignalError(ctx, s.DB, err, targetReflection, id, signal)
}

// central returns where the projects' central refs live.
func (s *Service) central() models.CentralRefs {
	return models.NewCentralRefs(s.DB, s.Config.CentralGitDir)
}

// finishedSinceReflection counts the project's experiments that finished
// since its last published reflection (the reflection_required limit).
func (s *Service) finishedSinceReflection(ctx context.Context, projectID string) (int64, error) {
	since, err := models.LastPublishedAt(ctx, s.DB, projectID)
	if err != nil {
		return 0, err
	}
	return models.CountFinishedSince(ctx, s.DB, projectID, since)
}

func decodeLenses(raw string) []rg.Lens {
	var ls []rg.Lens
	_ = json.Unmarshal([]byte(raw), &ls)
	return ls
}

func decodeCorpus(raw string) []corpusEntry {
	var cs []corpusEntry
	_ = json.Unmarshal([]byte(raw), &cs)
	return cs
}
