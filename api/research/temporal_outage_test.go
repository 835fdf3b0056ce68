package research

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// outageService is a service whose Temporal refuses every write as it
// does when it is down; state queries still answer (a read replica of
// the truth is not needed to show the writes' answers).
func outageService(t *testing.T) (*Service, *mocks.Client) {
	t.Helper()
	db := modelstest.SQLite(t)
	s := newTestService(t)
	tc := &mocks.Client{}
	s.DB, s.Temporal = db, tc
	for _, row := range []any{
		&models.Project{ID: "prj_o", Name: "outage", CreatedBy: "op"},
		&models.Experiment{ID: "exp_o", ProjectID: "prj_o", Name: "mirrored", Status: "design_review", Gate: "design_review", Revision: 3},
		// experiment.create stored this row, then could not start its workflow.
		&models.Experiment{ID: "exp_lost", ProjectID: "prj_o", Name: "lost-start", Status: "planned"},
	} {
		if err := db.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	st := wf.ExperimentState{ProjectID: "prj_o", ExperimentID: "exp_o", Status: gates.DesignReview, Revision: 3,
		Artifacts: map[string]wf.ArtifactRef{}, Reviews: map[string]wf.ReviewState{}}
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_o"), "", wf.StateQuery).Return(queriedState{st}, nil)
	return s, tc
}

func down() error { return serviceerror.NewUnavailable("connection refused") }

// TestWrites_TemporalDownAnswersARetryableUnavailable: every research
// write that needs Temporal answers unavailable (HTTP 503) marked
// retryable, never a conflict the caller would take as its own fault.
func TestWrites_TemporalDownAnswersARetryableUnavailable(t *testing.T) {
	s, tc := outageService(t)
	tc.On("SignalWorkflow", mock.Anything, mock.Anything, "", mock.Anything, mock.Anything).Return(down())
	tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(nil, down())
	tc.On("ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(nil, down())
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	for tool, args := range map[string]map[string]any{
		"experiment.create":     {"project_id": "prj_o", "name": "fresh-one"},
		"experiment.transition": {"project_id": "prj_o", "experiment_id": "exp_o", "transition": "abandon"},
		"review.request":        {"project_id": "prj_o", "target_type": "experiment", "target_id": "exp_o", "role": "design_reviewer"},
	} {
		raw, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, terr := s.Invoke(ctx, agent, tool, raw)
		cancel()
		if terr == nil || terr.Code != "unavailable" || terr.Details["retryable"] != true || statusOf[terr.Code] != 503 {
			t.Errorf("%s with Temporal down: %+v, want a retryable unavailable (503)", tool, terr)
		}
	}
}

// TestSignal_TemporalRefusingForItsOwnReasonIsRetryableNotAConflict.
func TestSignal_TemporalRefusingForItsOwnReasonIsRetryableNotAConflict(t *testing.T) {
	s, _ := outageService(t)
	for _, err := range []error{serviceerror.NewInternal("history unavailable"), serviceerror.NewCanceled("client connection is closing")} {
		var te *ToolError
		if got := closedSignalError(context.Background(), s.DB, err, "experiment", "exp_o", wf.ReviewRequestedSignal); !errors.As(got, &te) ||
			te.Code != "unavailable" || te.Details["retryable"] != true {
			t.Errorf("%v: got %v, want a retryable unavailable", err, got)
		}
	}
}

// TestTransition_AnExperimentWhoseStartWasLostGetsItsWorkflow: the row
// exists, the workflow never started (Temporal was down at create); the
// next transition starts it instead of answering a conflict forever.
func TestTransition_AnExperimentWhoseStartWasLostGetsItsWorkflow(t *testing.T) {
	s, tc := outageService(t)
	tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(nil, serviceerror.NewNotFound("workflow not found")).Once()
	tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(nil, down()).Once()
	tc.On("ExecuteWorkflow", mock.Anything, mock.MatchedBy(func(o client.StartWorkflowOptions) bool {
		return o.ID == wf.ExperimentWorkflowID("exp_lost")
	}), wf.ExperimentWorkflowName, wf.ExperimentInput{ProjectID: "prj_o", ExperimentID: "exp_lost", Name: "lost-start"}).Return(nil, nil).Once()
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	_, terr := s.Invoke(context.Background(), agent, "experiment.transition",
		json.RawMessage(`{"project_id":"prj_o","experiment_id":"exp_lost","transition":"abandon"}`))
	if terr == nil || terr.Code != "unavailable" || terr.Details["retryable"] != true {
		t.Fatalf("got %+v", terr)
	}
	tc.AssertNumberOfCalls(t, "ExecuteWorkflow", 1)
	tc.AssertNumberOfCalls(t, "UpdateWorkflow", 2)
}
