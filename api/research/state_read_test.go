package research

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/mocks"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// finishedService is a service over a project with one complete
// experiment whose workflow Temporal answers as tc is told.
func finishedService(t *testing.T, db *gorm.DB) (*Service, *mocks.Client) {
	t.Helper()
	s := newTestService(t)
	s.DB = db
	tc := &mocks.Client{}
	s.Temporal = tc
	now := time.Now().UTC()
	for _, row := range []any{
		&models.Project{ID: "prj_f", Name: "finished", CreatedBy: "op"},
		&models.Experiment{ID: "exp_f", ProjectID: "prj_f", Name: "done", Status: "complete", Gate: "terminal", NextAction: "none",
			Revision: 9, Conclusion: "it held", FinishedAt: &now},
		&models.Artifact{ID: "art_r", ProjectID: "prj_f", TargetType: "experiment", TargetID: "exp_f", Role: "result", Path: "r.json",
			SHA256: "ab", Size: 2, Valid: true, UploadTokenHash: "h1", UploadedAt: &now, UploadExpiresAt: now},
	} {
		if err := db.Create(row).Error; err != nil {
			t.Fatal(err)
		}
	}
	return s, tc
}

var finishedState = wf.ExperimentState{ProjectID: "prj_f", ExperimentID: "exp_f", Name: "done", Status: gates.Complete, Revision: 9,
	Conclusion: "it held", Artifacts: map[string]wf.ArtifactRef{"result": {ArtifactID: "art_r", Role: "result", SHA256: "ab", Valid: true}},
	Reviews: map[string]wf.ReviewState{"experiment": {Status: wf.ReviewStatusPassed, RequestID: "rr_1"}},
	History: []wf.TransitionRecord{{Transition: gates.TComplete, From: gates.ExperimentReview, To: gates.Complete}}}

// operator may call the internal experiment.get_state.
var operator = platform.Principal{CredentialID: "op", Role: platform.RoleOperator, AllProjects: true}

func getState(t *testing.T, s *Service) wf.ExperimentState {
	t.Helper()
	out, terr := s.Invoke(context.Background(), operator, "experiment.get_state", json.RawMessage(`{"project_id":"prj_f","experiment_id":"exp_f"}`))
	if terr != nil {
		t.Fatalf("experiment.get_state: %+v", terr)
	}
	// The state as the answer encodes it.
	raw, _ := json.Marshal(out.(experimentStateResp).State)
	var st wf.ExperimentState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestState_EndedExperimentIsReadFromItsStoredFinalStateNotTemporal(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s, tc := finishedService(t, db)
		raw, _ := json.Marshal(finishedState)
		if err := models.StoreFinalState(context.Background(), db, models.WorkflowFinalState{WorkflowID: wf.ExperimentWorkflowID("exp_f"),
			Kind: models.FinalKindExperiment, Revision: 9, StateJSON: string(raw)}); err != nil {
			t.Fatal(err)
		}
		st := getState(t, s)
		if st.Status != gates.Complete || st.Reviews["experiment"].RequestID != "rr_1" || len(st.History) != 1 {
			t.Fatalf("state %+v, want the stored final state", st)
		}
		tc.AssertNotCalled(t, "QueryWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything)
	})
}

func TestState_PurgedExperimentWithoutStoredStateIsRebuiltFromItsRows(t *testing.T) {
	s, tc := finishedService(t, modelstest.SQLite(t))
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_f"), "", wf.StateQuery).
		Return(nil, serviceerror.NewNotFound("workflow not found for ID: research-experiment/exp_f"))
	st := getState(t, s)
	if st.Status != gates.Complete || st.Conclusion != "it held" || st.Revision != 9 || st.Artifacts["result"].ArtifactID != "art_r" {
		t.Fatalf("rebuilt state %+v", st)
	}
	out := invokeOK(t, s, "workflow.status_and_next", map[string]any{"project_id": "prj_f", "experiment_id": "exp_f"})
	if w := out["workflow"].(map[string]any); w["status"] != "complete" || w["next_action"] != "none" {
		t.Fatalf("status_and_next of a purged experiment: %v", w)
	}
}

func TestState_TransientQueryFailuresAreRetriedWithinTheCall(t *testing.T) {
	s, tc := finishedService(t, modelstest.SQLite(t))
	running := finishedState
	running.Status = gates.Running
	q := tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_f"), "", wf.StateQuery)
	// A killed worker held the query; then Temporal restarted; then the
	// other worker answers.
	q.Return(nil, serviceerror.NewDeadlineExceeded("query timed out before a worker could process it")).Once()
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_f"), "", wf.StateQuery).
		Return(nil, serviceerror.NewUnavailable("connection refused")).Once()
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_f"), "", wf.StateQuery).
		Return(queriedState{running}, nil).Once()
	if st := getState(t, s); st.Status != gates.Running {
		t.Fatalf("state %+v", st)
	}
	tc.AssertNumberOfCalls(t, "QueryWorkflow", 3)
}

func TestState_QueryThatKeepsFailingAnswersUnavailableWhenTheCallEnds(t *testing.T) {
	s, tc := finishedService(t, modelstest.SQLite(t))
	tc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_f"), "", wf.StateQuery).
		Return(nil, serviceerror.NewUnavailable("connection refused"))
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_, terr := s.Invoke(ctx, operator, "experiment.get_state", json.RawMessage(`{"project_id":"prj_f","experiment_id":"exp_f"}`))
	if terr == nil || terr.Code != "unavailable" {
		t.Fatalf("got %+v, want unavailable", terr)
	}
	if n := len(tc.Calls); n < 2 {
		t.Fatalf("%d queries: a transient failure is asked again", n)
	}
}

func TestSignal_ClosedWorkflowIsGateBlockedAndAnOutageUnavailable(t *testing.T) {
	s, _ := finishedService(t, modelstest.SQLite(t))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		err  error
		id   string
		want string
	}{
		{"closed after complete", serviceerror.NewNotFound("workflow execution already completed"), "exp_f", "gate_blocked"},
		{"missing and open in the mirror", serviceerror.NewNotFound("workflow not found"), "exp_unknown", "unavailable"},
		{"temporal down", serviceerror.NewUnavailable("connection refused"), "exp_f", "unavailable"},
		{"temporal slow", serviceerror.NewDeadlineExceeded("context deadline exceeded"), "exp_f", "unavailable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var te *ToolError
			if err := closedSignalError(ctx, s.DB, c.err, "experiment", c.id, wf.ReviewRequestedSignal); !errors.As(err, &te) || te.Code != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
		})
	}
	if closedSignalError(ctx, s.DB, nil, "experiment", "exp_f", wf.ReviewRequestedSignal) != nil {
		t.Fatal("a delivered signal is no error")
	}
}
