package research

import (
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// An attached sandbox reported running makes a running experiment's gate
// execution_active (search attribute and mirror record); repeated reports
// change nothing, and the gate returns to execution_ready when the last
// one stops. The experiment's revision is untouched.
func TestExperiment_RunningSandboxMakesTheGateExecutionActive(t *testing.T) {
	h := newHarness(t)
	sandbox := func(uid string, running bool) func() {
		return func() {
			h.env.SignalWorkflow(SandboxActivitySignal, SandboxActivity{SandboxUID: uid, Running: running})
		}
	}
	var revision int
	h.planToRunning().
		add(func() { revision = h.state().Revision }).
		add(sandbox("sbx_a", true)).add(sandbox("sbx_a", true)).add(sandbox("sbx_b", true)).
		expect(gates.Running, gate("execution_active"), 0).
		add(func() {
			if st := h.state(); st.Revision != revision || len(st.SandboxesRunning) != 2 {
				t.Errorf("after sandbox reports: revision %d (want %d), running %v", st.Revision, revision, st.SandboxesRunning)
			}
		}).
		add(sandbox("sbx_a", false)).expect(gates.Running, gate("execution_active"), 0).
		add(sandbox("sbx_b", false)).expect(gates.Running, gate("execution_ready"), 0).
		add(sandbox("sbx_b", true)).results().
		expect(gates.ExperimentReview, gate("experiment_review"), 0).
		transition(gates.TAbandon, nil)
	h.run(input)
	seen := false
	for _, r := range h.recs {
		if r.Gate == "execution_active" {
			seen = true
		}
	}
	if !seen {
		t.Fatalf("the mirror never recorded execution_active: %+v", h.recs)
	}
}
