package flywheel

import (
	"slices"
	"testing"
	"time"

	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// TestOutput_AnswersWithoutWaitingForTemporal: the output is accepted by
// the row's compare-and-swap and answered at once, while Temporal is slow;
// the workflow is told once Temporal answers.
func TestOutput_AnswersWithoutWaitingForTemporal(t *testing.T) {
	e := newTestEnv(t, Options{})
	g := e.lease(time.Hour)
	hold := make(chan struct{})
	e.temporal.mu.Lock()
	e.temporal.hold = hold
	e.temporal.mu.Unlock()

	answered := make(chan result, 1)
	go func() { answered <- e.output(g, `{"final_text":"done","tool_calls":[],"llm_call_count":0}`) }()
	select {
	case r := <-answered:
		if r.Status != 200 {
			t.Fatalf("output: %d %s", r.Status, r.Body)
		}
	case <-time.After(2 * time.Second):
		close(hold)
		<-answered
		t.Fatal("the output waited for Temporal before answering")
	}
	close(hold)
	want := wf.OutputSignal + " " + wf.WorkflowID(g.Rollout.ID)
	deadline := time.Now().Add(5 * time.Second)
	for {
		e.temporal.mu.Lock()
		told := slices.Contains(e.temporal.signals, want)
		e.temporal.mu.Unlock()
		if told {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the workflow was never told of the output (signals %v)", e.temporal.signals)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
