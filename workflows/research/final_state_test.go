package research

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// sameJSON compares two states as the API reads them back: through JSON.
func sameJSON(t *testing.T, got, want any) {
	t.Helper()
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Fatalf("stored final state\n%s\nwant the workflow's result\n%s", a, b)
	}
}

// activityOrder records the types of the activities a test env starts.
func activityOrder(env *testsuite.TestWorkflowEnvironment) *[]string {
	var order []string
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		order = append(order, info.ActivityType.Name)
	})
	return &order
}

func TestExperiment_StoresItsFinalStateAsTheLastStep(t *testing.T) {
	h := newHarness(t)
	order := activityOrder(h.env)
	h.land("plan", true).transition(gates.TSubmitDesign, nil).transition(gates.TAbandon, nil)
	h.expectFinalRecord(final(gates.Abandoned, 0, 3, ""))
	st := h.run(input)
	if len(h.finals) != 1 {
		t.Fatalf("final state stored %d times, want once", len(h.finals))
	}
	sameJSON(t, h.finals[0], st)
	if h.finals[0].Status != gates.Abandoned || h.finals[0].Revision != 3 || len(h.finals[0].History) != 2 {
		t.Fatalf("stored %+v", h.finals[0])
	}
	if n := len(*order); n < 2 || (*order)[n-1] != StoreExperimentFinalActivity || (*order)[n-2] != RecordExperimentActivity {
		t.Fatalf("activities %v: the final state is stored after the last mirror write, as the last step", *order)
	}
}

func TestExperiment_FinalStateStoreIsRetriedUntilItLands(t *testing.T) {
	h := newHarness(t)
	h.transition(gates.TAbandon, nil)
	calls := 0
	h.env.OnActivity(StoreExperimentFinalActivity, mock.Anything, mock.MatchedBy(func(st ExperimentState) bool {
		return st.ExperimentID == input.ExperimentID && st.Status == gates.Abandoned
	})).Return(func(context.Context, ExperimentState) error {
		if calls++; calls < 3 {
			return errors.New("database restarting")
		}
		return nil
	})
	st := h.run(input)
	if calls != 3 || st.Status != gates.Abandoned {
		t.Fatalf("%d store attempts, status %s: a failed store must be retried before the workflow closes", calls, st.Status)
	}
}

func TestReflection_StoresItsFinalStateAsTheLastStep(t *testing.T) {
	w := newWave(t)
	order := activityOrder(w.env)
	w.lensDocs().transition(rg.TSubmitReflections, false).transition(rg.TAbandon, false)
	st := w.run()
	if len(w.finals) != 1 {
		t.Fatalf("final state stored %d times, want once", len(w.finals))
	}
	sameJSON(t, w.finals[0], st)
	if w.finals[0].Status != rg.Abandoned || len(w.finals[0].Artifacts) != len(rosterOf()) {
		t.Fatalf("stored %+v", w.finals[0])
	}
	if n := len(*order); (*order)[n-1] != StoreReflectionFinalActivity {
		t.Fatalf("activities %v: the final state is stored as the last step", *order)
	}
}
