package research

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/mocks"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// TestConsolidationGet_PriorReviewFeedbackCarriesTheReviewersFindingsAndEvidence:
// a consolidation reviewer's findings and evidence, given to review.submit
// on the path an agent takes (review.request by the producer, review.start
// and review.submit by the reviewer's key), come back unchanged in the
// consolidation packet's prior_consolidation_review_feedback, which is how
// the producer reads what to fix in its next proposal.
func TestConsolidationGet_PriorReviewFeedbackCarriesTheReviewersFindingsAndEvidence(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		s := newTestService(t)
		s.DB = db
		tc := &mocks.Client{}
		s.Temporal = tc
		open := "prj_f"
		corpus := `[{"experiment_id":"exp_f1","name":"one","intent":"i","status":"complete","conclusion":"it held","base_sha":"c0ffee"}]`
		for _, row := range []any{&models.Project{ID: "prj_f", Name: "findings", CreatedBy: "op"},
			&models.Reflection{ID: "rfl_f", ProjectID: "prj_f", OpenProject: &open, Status: string(rg.Consolidating), Title: "wave",
				LensesJSON: "[]", CorpusJSON: corpus},
			&models.ConsolidationProposal{ID: "cp_f", ProjectID: "prj_f", ReflectionID: "rfl_f", Revision: 1, BaseSHA: "c0ffee", ProposalSHA: "beef",
				Summary: "sum", ValidationJSON: "{}", DecisionsJSON: `[{"experiment_id":"exp_f1","disposition":"adapted","integration_kind":"merge","source_sha":"abc1"}]`,
				CreatedBy: "cred_f_producer"},
		} {
			if err := db.Create(row).Error; err != nil {
				t.Fatal(err)
			}
		}
		// The wave waits for its consolidation review: the proposal of this
		// revision is in, no review yet.
		rst := wf.ReflectionState{ProjectID: "prj_f", ReflectionID: "rfl_f", Status: rg.Consolidating, Attempt: 1, ProposalRevision: 1,
			Lenses: rg.CoreLenses[:1], Proposal: &wf.ProposalRef{ProposalID: "cp_f", Revision: 1, BaseSHA: "c0ffee", ProposalSHA: "beef"},
			Reviews: map[string]wf.ReviewState{}}
		tc.On("QueryWorkflow", mock.Anything, wf.ReflectionWorkflowID("rfl_f"), "", wf.StateQuery).Return(queriedState{rst}, nil)
		// The workflow accepts and applies every notice (review requested,
		// started, verdict) at once.
		answered := &mocks.WorkflowUpdateHandle{}
		answered.On("Get", mock.Anything, mock.Anything).Return(nil)
		tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(answered, nil)

		producer := platform.Principal{CredentialID: "cred_f_producer", Role: platform.RoleAgent, Projects: []string{"prj_f"}}
		reviewer := platform.Principal{CredentialID: "cred_f_reviewer", Role: platform.RoleAgent, Projects: []string{"prj_f"}}
		call := func(p platform.Principal, tool string, args map[string]any) map[string]any {
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

		req := call(producer, "review.request", map[string]any{"project_id": "prj_f", "target_type": targetReflection, "target_id": "rfl_f",
			"role": "consolidation_reviewer"})
		requestID, _ := req["review_request_id"].(string)
		capability, _ := req["reviewer_capability"].(string)
		if requestID == "" || capability == "" {
			t.Fatalf("review.request: %v", req)
		}
		started := call(reviewer, "review.start", map[string]any{"review_request_id": requestID, "reviewer_capability": capability,
			"caller_session_id": "reviewer-session"})
		sessionID, _ := started["review_session_id"].(string)
		if sessionID == "" {
			t.Fatalf("review.start: %v", started)
		}

		// Findings of mixed shapes (an object, a plain string) and nested
		// evidence, as review.submit's schema allows.
		findings := []any{
			map[string]any{"id": "F1", "severity": "major", "experiment_id": "exp_f1",
				"text": "adapted needs the merge base named; abc1 is not on central"},
			"the validation block records no test run",
		}
		evidence := map[string]any{"checked_proposal_sha": "beef", "commands": []any{"git merge-base c0ffee abc1", "go test ./..."},
			"exit_codes": map[string]any{"go test ./...": float64(1)}}
		submitted := call(reviewer, "review.submit", map[string]any{"review_session_id": sessionID, "verdict": "needs_changes",
			"synopsis": "the proposal cannot be merged as written", "notes": "see findings", "findings": findings, "evidence": evidence})
		if submitted["recorded"] != true {
			t.Fatalf("review.submit: %v", submitted)
		}

		packet := call(producer, "consolidation.get", map[string]any{"project_id": "prj_f", "reflection_id": "rfl_f"})
		feedback, _ := packet["prior_consolidation_review_feedback"].([]any)
		if len(feedback) != 1 {
			t.Fatalf("prior_consolidation_review_feedback: %v, want the one submitted review", packet["prior_consolidation_review_feedback"])
		}
		fb, _ := feedback[0].(map[string]any)
		if fb["review_request_id"] != requestID || fb["verdict"] != "needs_changes" || fb["synopsis"] != "the proposal cannot be merged as written" {
			t.Fatalf("feedback %v, want request %s, verdict needs_changes and the synopsis", fb, requestID)
		}
		if !reflect.DeepEqual(fb["findings"], findings) {
			t.Errorf("feedback findings\n got %#v\nwant %#v", fb["findings"], findings)
		}
		if !reflect.DeepEqual(fb["evidence"], evidence) {
			t.Errorf("feedback evidence\n got %#v\nwant %#v", fb["evidence"], evidence)
		}
	})
}
