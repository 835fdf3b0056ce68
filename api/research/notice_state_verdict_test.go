package research

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// TestReviewSubmit_ReportsTheStateTheVerdictsNoticeAnswered: review.submit
// says where the target is from the state the verdict's NoticeUpdate
// answered, with no state query after it: the move the workflow applied
// (a design rejection back to planned), or, when the workflow did not
// apply the verdict (its request was no longer current), the target
// where it stayed instead of the move the api predicted.
func TestReviewSubmit_ReportsTheStateTheVerdictsNoticeAnswered(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer gates.Status
		want   string
	}{{"applied", gates.Planned, "planned"}, {"not applied", gates.DesignReview, "design_review"}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestService(t)
			s.DB = modelstest.SQLite(t)
			temporalc := &mocks.Client{}
			s.Temporal = temporalc
			for _, row := range []any{&models.Project{ID: "prj_v", Name: "verdicts", CreatedBy: "op"},
				&models.Experiment{ID: "exp_v", ProjectID: "prj_v", Name: "reviewed", Status: "design_review", Gate: "design_review"}} {
				if err := s.DB.Create(row).Error; err != nil {
					t.Fatal(err)
				}
			}
			st := wf.ExperimentState{ProjectID: "prj_v", ExperimentID: "exp_v", Name: "reviewed", Status: gates.DesignReview,
				Artifacts: map[string]wf.ArtifactRef{}, Reviews: map[string]wf.ReviewState{}}
			temporalc.On("QueryWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_v"), "", wf.StateQuery).Return(queriedState{st}, nil)
			isVerdict := func(o client.UpdateWorkflowOptions) bool {
				n, ok := o.Args[0].(wf.Notice)
				return ok && n.Signal == wf.ReviewVerdictSignal
			}
			// The verdict's notice answers the state after it; the others
			// are answered without one.
			after := st
			after.Status = tc.answer
			verdict := &mocks.WorkflowUpdateHandle{}
			verdict.On("Get", mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
				if args.Get(1) == nil {
					return // the caller discards the answer
				}
				raw, _ := json.Marshal(after)
				if err := json.Unmarshal(raw, args.Get(1)); err != nil {
					t.Error(err)
				}
			}).Return(nil).Once()
			temporalc.On("UpdateWorkflow", mock.Anything, mock.MatchedBy(isVerdict)).Return(verdict, nil).Once()
			other := &mocks.WorkflowUpdateHandle{}
			other.On("Get", mock.Anything, mock.Anything).Return(nil)
			temporalc.On("UpdateWorkflow", mock.Anything, mock.MatchedBy(func(o client.UpdateWorkflowOptions) bool { return !isVerdict(o) })).Return(other, nil)

			producer := platform.Principal{CredentialID: "cred_v_producer", Role: platform.RoleAgent, Projects: []string{"prj_v"}}
			reviewer := platform.Principal{CredentialID: "cred_v_reviewer", Role: platform.RoleAgent, Projects: []string{"prj_v"}}
			req := invokeAs(t, s, producer, "review.request", map[string]any{"project_id": "prj_v", "target_type": targetExperiment,
				"target_id": "exp_v", "role": "design_reviewer"})
			started := invokeAs(t, s, reviewer, "review.start", map[string]any{"review_request_id": req["review_request_id"],
				"reviewer_capability": req["reviewer_capability"], "caller_session_id": "reviewer-session"})
			queried := queriesOf(temporalc)
			got := invokeAs(t, s, reviewer, "review.submit", map[string]any{"review_session_id": started["review_session_id"],
				"verdict": "needs_changes", "synopsis": "the design misses its controls"})
			if got["target_status"] != tc.want || got["new_attempt"] != false || got["recorded"] != true {
				t.Fatalf("review.submit answered %v, want target_status %s", got, tc.want)
			}
			if n := queriesOf(temporalc) - queried; n != 1 {
				t.Fatalf("review.submit ran %d state queries, want 1 (the target's load, none after the notice)", n)
			}
			verdict.AssertExpectations(t)
		})
	}
}

// invokeAs calls tool as p and answers its JSON object.
func invokeAs(t *testing.T, s *Service, p platform.Principal, tool string, args map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(args)
	out, terr := s.Invoke(context.Background(), p, tool, raw)
	if terr != nil {
		t.Fatalf("%s %s: %+v", tool, raw, terr)
	}
	b, _ := json.Marshal(out)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// queriesOf counts the workflow queries made through c so far.
func queriesOf(c *mocks.Client) int {
	n := 0
	for _, call := range c.Calls {
		if call.Method == "QueryWorkflow" {
			n++
		}
	}
	return n
}
