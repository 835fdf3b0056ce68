package research

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

type reflectionArgs struct {
	ProjectID      string         `json:"project_id"`
	ReflectionID   string         `json:"reflection_id"`
	Title          string         `json:"title"`
	Lenses         []rg.Lens      `json:"lenses"`
	IncludeContent bool           `json:"include_content"`
	Transition     string         `json:"transition"`
	Evidence       map[string]any `json:"evidence"`
}

// roster builds the five lenses: the core three (a listed core id keeps
// its default charter unless one is given) plus exactly two designed ones.
func roster(given []rg.Lens) ([]rg.Lens, error) {
	out := append([]rg.Lens{}, rg.CoreLenses...)
	seen := map[string]bool{}
	designed := 0
	for i, l := range given {
		if seen[l.ID] {
			return nil, invalid("/lenses/"+strconv.Itoa(i)+"/id", "lens id "+l.ID+" is repeated")
		}
		seen[l.ID] = true
		core := false
		for j := range out[:3] {
			if out[j].ID == l.ID {
				out[j].Charter, out[j].Title = l.Charter, l.Title
				core = true
			}
		}
		if !core {
			l.Core = false
			out = append(out, l)
			designed++
		}
	}
	if designed != rg.RosterSize-len(rg.CoreLenses) {
		return nil, invalid("/lenses", "the roster is exactly five lenses: amplify, avoid, entropy and the two you design; you designed "+strconv.Itoa(designed))
	}
	return out, nil
}

func reflectionCreate(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reflectionArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	p, err := s.project(ctx, c, in.ProjectID)
	if err != nil {
		return nil, err
	}
	lenses, err := roster(in.Lenses)
	if err != nil {
		return nil, err
	}
	// The wave's created_at is when its corpus was read, the next wave's
	// cutoff (models.LastPublishedAt): what finishes later is the next
	// wave's.
	snapshotAt := time.Now().UTC()
	corpus, err := s.snapshotCorpus(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(corpus))
	for _, e := range corpus {
		ids = append(ids, e.ExperimentID)
	}
	lj, _ := json.Marshal(lenses)
	cj, _ := json.Marshal(corpus)
	r := models.Reflection{ID: models.NewID("refl_"), ProjectID: p.ID, Title: in.Title, Status: string(rg.Reflecting),
		LensesJSON: string(lj), CorpusJSON: string(cj), CreatedAt: snapshotAt}
	err = models.CreateReflection(ctx, s.DB, r, func() error {
		_, err := s.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: wf.ReflectionWorkflowID(r.ID), TaskQueue: s.Config.TaskQueue},
			wf.ReflectionWorkflowName, wf.ReflectionInput{ProjectID: p.ID, ReflectionID: r.ID, Title: in.Title, Lenses: lenses, Corpus: ids})
		return err
	})
	if err != nil {
		return nil, err
	}
	return reflectionCreateResp{ReflectionID: r.ID, WorkflowID: wf.ReflectionWorkflowID(r.ID), Status: rg.Reflecting,
		Roster: lenses, Corpus: corpus, Folder: "reflections/" + r.ID + "/",
		Next: "fan out one subagent per lens; each writes reflections/" + r.ID + "/lenses/<lens_id>.md and artifact.submit it with role reflection_lens_doc"}, nil
}

// snapshotCorpus lists the experiments finished since the project's last
// published wave with their final report, graph and result artifacts
// (artifacts are immutable, so their ids are the snapshot).
func (s *Service) snapshotCorpus(ctx context.Context, projectID string) ([]corpusEntry, error) {
	// The wave reflects on what finished since the last published wave,
	// not on the whole history the earlier waves already reflected on.
	since, err := models.LastPublishedAt(ctx, s.DB, projectID)
	if err != nil {
		return nil, err
	}
	exps, err := models.FinishedSince(ctx, s.DB, projectID, since)
	if err != nil {
		return nil, err
	}
	base, err := s.central().Read(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]corpusEntry, 0, len(exps))
	for _, e := range exps {
		ce := corpusEntry{ExperimentID: e.ID, Name: e.Name, Intent: e.Intent, Status: e.Status, Conclusion: e.Conclusion, BaseSHA: base}
		as, err := models.AttemptArtifacts(ctx, s.DB, targetExperiment, e.ID, e.Attempt)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			switch a.Role {
			case "report":
				ce.ReportArtifactID = a.ID
			case "graph":
				ce.GraphArtifactID = a.ID
			case "result":
				ce.ResultArtifactID = a.ID
			}
		}
		out = append(out, ce)
	}
	return out, nil
}

func reflectionTransition(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reflectionArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.reflectionRow(ctx, c, in.ProjectID, in.ReflectionID); err != nil {
		return nil, err
	}
	// A finished wave's workflow takes no updates; answer as its table would.
	if st, err := s.reflectionState(ctx, in.ReflectionID); err == nil && st.Status.Terminal() {
		return nil, &ToolError{Code: CodeGateBlocked, Pointer: "/transition", Message: "the reflection is " + string(st.Status) + "; no transition leaves it",
			Details: map[string]any{"current_gate": "terminal", "allowed_transitions": []string{}}}
	}
	h, err := s.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: wf.ReflectionWorkflowID(in.ReflectionID),
		UpdateName: wf.TransitionUpdate, Args: []any{wf.TransitionRequest{Transition: in.Transition, Evidence: in.Evidence}},
		WaitForStage: client.WorkflowUpdateStageCompleted})
	var res wf.ReflectionTransitionResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	if closed := closedTransitionError(ctx, s.DB, err, targetReflection, in.ReflectionID); closed != nil {
		return nil, closed
	}
	if err != nil {
		return nil, transitionError(err, targetReflection)
	}
	return res, nil
}

func reflectionList(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reflectionArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	rs, err := models.ProjectReflections(ctx, s.DB, in.ProjectID, 200)
	if err != nil {
		return nil, err
	}
	out := make([]reflectionSummaryResp, 0, len(rs))
	for _, r := range rs {
		out = append(out, reflectionSummary(r))
	}
	return reflectionListResp{Reflections: out, Authority: "gates are mirrored from each wave's workflow"}, nil
}

func reflectionSummary(r models.Reflection) reflectionSummaryResp {
	return reflectionSummaryResp{ReflectionID: r.ID, Title: r.Title, Status: r.Status, CurrentGate: r.Gate, NextAction: r.NextAction,
		AttemptIndex: r.Attempt, Open: r.OpenProject != nil, PublishedAt: r.PublishedAt, CreatedAt: r.CreatedAt,
		ProjectGraphArtifactID: r.GraphArtifactID, ReflectionDocArtifactID: r.DocArtifactID}
}
