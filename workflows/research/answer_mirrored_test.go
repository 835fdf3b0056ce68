package research

import (
	"testing"

	"go.temporal.io/sdk/testsuite"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// TestExperiment_TransitionAnswersOnceTheMoveIsMirrored proves the
// transition update answers only after the run loop recorded the new
// status in the database, so a list read right after it (experiment.list,
// the console) shows the move; before, it answered first and such a read
// could still show the old status.
func TestExperiment_TransitionAnswersOnceTheMoveIsMirrored(t *testing.T) {
	h := newHarness(t)
	var mirroredAtAnswer []ExperimentRecord
	answered := false
	h.land("plan", true).add(func() {
		h.env.UpdateWorkflow(TransitionUpdate, "submit", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("submit_design rejected: %v", err) },
			OnAccept: func() {},
			OnComplete: func(_ any, err error) {
				if err != nil {
					t.Errorf("submit_design: %v", err)
				}
				h.mu.Lock()
				defer h.mu.Unlock()
				answered, mirroredAtAnswer = true, append([]ExperimentRecord(nil), h.recs...)
			}}, TransitionRequest{Transition: gates.TSubmitDesign})
	}).transition(gates.TAbandon, nil)
	h.run(input)
	if !answered {
		t.Fatal("submit_design never answered")
	}
	if n := len(mirroredAtAnswer); n == 0 || mirroredAtAnswer[n-1].Status != gates.DesignReview {
		t.Fatalf("records stored when submit_design answered: %+v, want the last one in design_review", mirroredAtAnswer)
	}
}
