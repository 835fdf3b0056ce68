package research

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// TestReviewRequest_AKindTheOperatorMarkedHumanCannotBeSidestepped: once
// an operator marks a project's design reviews human, the agent's request
// for its own design reviewer is refused (and writes nothing), and the
// status tells it to request a human review.
func TestReviewRequest_AKindTheOperatorMarkedHumanCannotBeSidestepped(t *testing.T) {
	s := newTestService(t)
	s.DB = modelstest.SQLite(t)
	tc := &mocks.Client{}
	s.Temporal = tc
	for _, row := range []any{&models.Project{ID: "prj_h", Name: "human", Description: "kept", CreatedBy: "op"},
		&models.Experiment{ID: "exp_h", ProjectID: "prj_h", Name: "needs-a-human", Status: "design_review"}} {
		if err := s.DB.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_h"), "", wf.StateQuery).Return(queriedState{wf.ExperimentState{
		ProjectID: "prj_h", ExperimentID: "exp_h", Status: gates.DesignReview, Artifacts: map[string]wf.ArtifactRef{}, Reviews: map[string]wf.ReviewState{}}}, nil)
	ctx := context.Background()
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, Projects: []string{"prj_h"}}
	if _, terr := s.Invoke(ctx, agent, "project.update", json.RawMessage(`{"project_id":"prj_h","human_reviews":["design"]}`)); terr == nil || terr.Code != "forbidden" {
		t.Fatalf("an agent key marked reviews: %+v", terr)
	}
	if _, terr := s.Invoke(ctx, operator, "project.update", json.RawMessage(`{"project_id":"prj_h","human_reviews":["design"]}`)); terr != nil {
		t.Fatal(terr)
	}
	var p models.Project
	if err := s.DB.Where("id = ?", "prj_h").Take(&p).Error; err != nil || p.HumanReviews != "design" || p.Description != "kept" {
		t.Fatalf("project after update: %+v %v", p, err)
	}
	_, terr := s.Invoke(ctx, agent, "review.request",
		json.RawMessage(`{"project_id":"prj_h","target_type":"experiment","target_id":"exp_h","role":"design_reviewer"}`))
	if terr == nil || terr.Code != "forbidden" || terr.Reason != "human_review_required" {
		t.Fatalf("agent's own reviewer for a human review: %+v", terr)
	}
	var n int64
	s.DB.Model(&models.ReviewRequest{}).Count(&n)
	if n != 0 {
		t.Fatalf("the refused request stored %d rows", n)
	}
	out, terr := s.Invoke(ctx, agent, "workflow.status_and_next", json.RawMessage(`{"project_id":"prj_h","experiment_id":"exp_h"}`))
	if terr != nil {
		t.Fatal(terr)
	}
	if g := out.(experimentStatusResp).Workflow.ReviewGate; g == nil || g.Role != models.RoleHuman {
		t.Fatalf("review_gate %v, want role human", g)
	}
}
