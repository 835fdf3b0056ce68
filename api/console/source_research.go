package console

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/research"
	consolemodel "github.com/gatehouse/gatehouse/models/console"
	"github.com/gatehouse/gatehouse/models/platform"
	resmodels "github.com/gatehouse/gatehouse/models/research"
	reswf "github.com/gatehouse/gatehouse/workflows/research"
)

// humanReviewer is the research operation behind
// POST /operator/v1/research/reviews/:id/verdict (research.Service).
type humanReviewer interface {
	AnswerHumanReview(ctx context.Context, operator platform.Principal, requestID string, v research.Verdict) (*research.VerdictAnswer, error)
}

// researchSource adapts the research tools (#6) to the console: review
// requests, artifacts and experiments are read from models/research; a
// verdict goes through research.Service.AnswerHumanReview, the operation
// the REST operator endpoint calls.
type researchSource struct {
	db       *gorm.DB
	reviewer humanReviewer
}

// PendingReviews lists open review requests addressed to a human, oldest
// first, with the artifacts that landed for their target.
func (r *researchSource) PendingReviews(ctx context.Context) ([]ReviewRequest, error) {
	var rows []resmodels.ReviewRequest
	err := r.db.WithContext(ctx).Where("role = ? AND status IN ?", "human", []string{resmodels.ReviewRequested, resmodels.ReviewStarted}).
		Order("created_at").Limit(500).Find(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make([]ReviewRequest, 0, len(rows))
	for _, row := range rows {
		rr := ReviewRequest{ID: row.ID, ProjectID: row.ProjectID, TargetType: row.TargetType, TargetID: row.TargetID,
			Reason: row.Reason, CreatedAt: row.CreatedAt}
		if row.TargetType == "experiment" {
			rr.WorkflowID = reswf.ExperimentWorkflowID(row.TargetID)
		}
		var arts []resmodels.Artifact
		if err := r.db.WithContext(ctx).Where("target_type = ? AND target_id = ? AND uploaded_at IS NOT NULL", row.TargetType, row.TargetID).
			Order("created_at").Limit(200).Find(&arts).Error; err != nil {
			return nil, err
		}
		for _, a := range arts {
			summary := fmt.Sprintf("%s · %d bytes · sha256 %s", a.Path, a.Size, a.SHA256)
			if !a.Valid {
				summary += " · invalid: " + a.Problems
			}
			rr.Artifacts = append(rr.Artifacts, Artifact{ID: a.ID, Type: a.Role, Title: a.Title, Summary: summary})
		}
		out = append(out, rr)
	}
	return out, nil
}

// SubmitVerdict answers a human review as the signed-in operator.
func (r *researchSource) SubmitVerdict(ctx context.Context, op Operator, requestID string, v Verdict) error {
	p := platform.Principal{CredentialID: op.CredentialID, Role: platform.RoleOperator, Name: op.Name}
	_, err := r.reviewer.AnswerHumanReview(ctx, p, requestID, research.Verdict{Verdict: v.Verdict, ReturnTo: v.ReturnTo, Synopsis: v.Synopsis})
	return researchError(err)
}

// researchError maps the research tool error codes onto the console's.
func researchError(err error) error {
	var te *research.ToolError
	if err == nil || !errors.As(err, &te) {
		return err
	}
	switch te.Code {
	case "not_found":
		return fmt.Errorf("%w: %s", ErrNotFound, te.Message)
	case "conflict", "expired", "gate_blocked":
		return fmt.Errorf("%w: %s", ErrConflict, te.Message)
	case "invalid_input", "forbidden":
		return fmt.Errorf("%w: %s", ErrInvalid, te.Message)
	}
	return err
}

// ResearchExperiments lists one page of experiments with their current
// gate, newest first. The gate column mirrors the experiment workflow,
// which is the authority.
func (r *researchSource) ResearchExperiments(ctx context.Context, f ExperimentFilter, p Page) (ListPage[ResearchExperiment], error) {
	rows, next, err := consolemodel.ListResearchExperiments(ctx, r.db, f, p)
	if err != nil {
		return ListPage[ResearchExperiment]{}, err
	}
	out := ListPage[ResearchExperiment]{Items: make([]ResearchExperiment, 0, len(rows))}
	for _, e := range rows {
		out.Items = append(out.Items, ResearchExperiment{ID: e.ID, ProjectID: e.ProjectID, Title: e.Name, Status: e.Status,
			Gate: e.Gate, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, WorkflowID: reswf.ExperimentWorkflowID(e.ID)})
	}
	if next != nil {
		out.Next = next.String()
	}
	return out, nil
}

// The research service is what the adapter calls in production.
var _ humanReviewer = (*research.Service)(nil)
