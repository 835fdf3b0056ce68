package gates

import (
	"maps"
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// TestOverrides_EachFailureOrInterruptionNamesItsTransition: the situations
// of the reference's retry_running, mark_experiment_failed and
// abandon_experiment keep their gate and tools, and the transition the
// next action names is allowed there.
func TestOverrides_EachFailureOrInterruptionNamesItsTransition(t *testing.T) {
	met := func(st Status) gateengine.Facts {
		s, _ := StageOf(st)
		return satisfiedBefore(s, len(s.Requirements))
	}
	cases := []struct {
		name       string
		status     Status
		f          gateengine.Facts
		gate, next string
		transition string
	}{
		{"sandbox ended abnormally, no result", Running, gateengine.Facts{EvSandboxInterrupted: gateengine.Satisfied}, "execution_ready", "retry_running", TRetryRunning},
		{"experiment review failed, new attempt", Planned, gateengine.Facts{EvAttemptFailed: gateengine.Satisfied}, "plan_required", "mark_experiment_failed", TMarkFailed},
		{"experiment review failed, same attempt", Running, with(met(Running), EvAttemptFailed), "experiment_review_required", "mark_experiment_failed", TMarkFailed},
		{"design review failed", Planned, with(met(Planned), EvDesignFailed), "design_review_required", "abandon_experiment", TAbandon},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Evaluate(c.status, c.f)
			if d.Gate != c.gate || d.NextAction != c.next || !slices.Contains(d.Transitions, c.transition) {
				t.Fatalf("gate/next = %s/%s transitions %v, want %s/%s with %s", d.Gate, d.NextAction, d.Transitions, c.gate, c.next, c.transition)
			}
			if mv, err := Check(c.status, c.f, c.next); err != nil || mv.Name != c.transition {
				t.Fatalf("the next action %s is no allowed transition: %v %v", c.next, mv, err)
			}
			plain := Evaluate(c.status, without(c.f))
			if d.Gate != plain.Gate || !slices.Equal(d.AllowedTools, plain.AllowedTools) || !slices.Equal(d.Transitions, plain.Transitions) {
				t.Fatalf("the override changed more than the next action: %+v vs %+v", d, plain)
			}
		})
	}
}

// TestOverrides_NeverChangeWhatCheckAccepts: in every situation of every
// stage, each move is accepted or refused alike with every override
// condition on as with none.
func TestOverrides_NeverChangeWhatCheckAccepts(t *testing.T) {
	for _, st := range Table {
		for _, f := range situations(st) {
			plain := without(f)
			for _, mv := range Moves {
				_, errWith := Check(st.Status, f, mv.Name)
				_, errPlain := Check(st.Status, plain, mv.Name)
				if (errWith == nil) != (errPlain == nil) {
					t.Fatalf("%s %v: %s accepted %v with the conditions, %v without", st.Status, f, mv.Name, errWith == nil, errPlain == nil)
				}
			}
		}
	}
}

// with returns f with condition ev Satisfied.
func with(f gateengine.Facts, ev gateengine.Evidence) gateengine.Facts {
	g := maps.Clone(f)
	g[ev] = gateengine.Satisfied
	return g
}

// without returns f less every override condition.
func without(f gateengine.Facts) gateengine.Facts {
	g := maps.Clone(f)
	for _, ev := range []gateengine.Evidence{EvSandboxInterrupted, EvAttemptFailed, EvDesignFailed} {
		delete(g, ev)
	}
	return g
}
