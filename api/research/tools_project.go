package research

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

func init() {
	registerFamily("project",
		Tool{Name: "project", Handler: projectTool, Description: "Navigation for this credential, dispatched on action: list, current, create (operators only), overview.",
			Schema: object([]string{"action"}, props{"action": enum("what to do", "list", "current", "create", "overview"),
				"project_id": projectID, "name": strLen("project name (create)", 1, 200), "description": strLen("description (create)", 0, 4000)})},
		Tool{Name: "project.list", Hidden: true, ReadOnly: true, Handler: projectListTool, Description: "Internal: list every project this credential may use.",
			Schema: object(nil, props{})},
		Tool{Name: "project.get", Hidden: true, ReadOnly: true, Handler: projectGetTool, Description: "Internal: one project.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID})},
		Tool{Name: "project.update", Hidden: true, Handler: projectUpdateTool,
			Description: "Internal: update a project's description, and the review kinds only an operator answers (human_reviews).",
			Schema: object([]string{"project_id"}, props{"project_id": projectID, "description": strLen("description", 0, 4000),
				"human_reviews": map[string]any{"type": "array", "description": "review kinds marked human: only an operator answers them",
					"maxItems": 4, "uniqueItems": true, "items": enum("review kind", kindDesign, kindExperiment, kindReflection, kindConsolidation)}})},
	)
}

type projectArgs struct {
	Action      string `json:"action"`
	ProjectID   string `json:"project_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

func projectTool(ctx context.Context, s *Service, c *Call) (any, error) {
	var in projectArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	switch in.Action {
	case "list":
		return projectListTool(ctx, s, c)
	case "current":
		ps, err := s.visibleProjects(ctx, c)
		if err != nil {
			return nil, err
		}
		if in.ProjectID != "" {
			p, err := s.project(ctx, c, in.ProjectID)
			if err != nil {
				return nil, err
			}
			return projectResp{Project: p}, nil
		}
		if len(ps) == 1 {
			return projectResp{Project: ps[0]}, nil
		}
		return projectChoiceResp{Projects: ps, Hint: "pass project_id; this credential may use several projects"}, nil
	case "create":
		if c.Principal.Role != platform.RoleOperator {
			return nil, toolErr(CodeForbidden, "/action", "external keys cannot create projects; ask an operator")
		}
		if strings.TrimSpace(in.Name) == "" {
			return nil, invalid("/name", "create needs a name")
		}
		p := models.Project{ID: models.NewID("prj_"), Name: strings.TrimSpace(in.Name), Description: in.Description, CreatedBy: c.Principal.CredentialID}
		existing, err := models.ProjectByName(ctx, s.DB, p.Name)
		if err == nil { // idempotent on name
			return projectCreateResp{Project: existing, Created: false}, nil
		}
		if !errors.Is(err, models.ErrNoRecord) {
			return nil, err
		}
		if err := models.CreateProject(ctx, s.DB, &p); err != nil {
			return nil, err
		}
		return projectCreateResp{Project: p, Created: true}, nil
	default: // overview
		if in.ProjectID == "" {
			return nil, invalid("/project_id", "overview needs project_id")
		}
		p, err := s.project(ctx, c, in.ProjectID)
		if err != nil {
			return nil, err
		}
		ov, err := s.overview(ctx, p)
		if err != nil {
			return nil, err
		}
		return ov, nil
	}
}

func (s *Service) visibleProjects(ctx context.Context, c *Call) ([]models.Project, error) {
	return models.VisibleProjects(ctx, s.DB, c.Principal.AllProjects || c.Principal.Role == platform.RoleOperator, c.Principal.Projects)
}

func projectListTool(ctx context.Context, s *Service, c *Call) (any, error) {
	ps, err := s.visibleProjects(ctx, c)
	if err != nil {
		return nil, err
	}
	return projectListResp{Projects: ps}, nil
}

func projectGetTool(ctx context.Context, s *Service, c *Call) (any, error) {
	var in projectArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	p, err := s.project(ctx, c, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return projectResp{Project: p}, nil
}

func projectUpdateTool(ctx context.Context, s *Service, c *Call) (any, error) {
	var in struct {
		ProjectID    string    `json:"project_id"`
		Description  *string   `json:"description"`
		HumanReviews *[]string `json:"human_reviews"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	p, err := s.project(ctx, c, in.ProjectID)
	if err != nil {
		return nil, err
	}
	up := map[string]any{"updated_at": time.Now().UTC()}
	if in.Description != nil {
		up["description"] = *in.Description
	}
	if in.HumanReviews != nil {
		up["human_reviews"] = strings.Join(*in.HumanReviews, ",")
	}
	if err := models.UpdateProject(ctx, s.DB, &p, up); err != nil {
		return nil, err
	}
	return projectResp{Project: p}, nil
}

// overview summarizes a project: experiments by status, claims, champion.
func (s *Service) overview(ctx context.Context, p models.Project) (*projectOverviewResp, error) {
	exps, err := models.ProjectExperiments(ctx, s.DB, p.ID)
	if err != nil {
		return nil, err
	}
	claims, err := models.ProjectClaims(ctx, s.DB, p.ID)
	if err != nil {
		return nil, err
	}
	champ, err := models.ChampionOf(ctx, s.DB, p.ID)
	if err != nil {
		return nil, err
	}
	byStatus := map[string]int{}
	summaries := make([]experimentSummaryResp, 0, len(exps))
	for _, e := range exps {
		byStatus[e.Status]++
		summaries = append(summaries, experimentSummary(e))
	}
	return &projectOverviewResp{Project: p, ExperimentsByStatus: byStatus, Experiments: summaries, Claims: claims, ChampionID: champ}, nil
}

func experimentSummary(e models.Experiment) experimentSummaryResp {
	return experimentSummaryResp{ExperimentID: e.ID, Name: e.Name, Intent: e.Intent, Status: e.Status,
		CurrentGate: e.Gate, NextAction: e.NextAction, AttemptIndex: e.Attempt}
}
