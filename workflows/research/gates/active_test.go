package gates

import (
	"fmt"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// TestTable_RunningSandboxTurnsAMissingResultIntoExecutionActive walks every
// row with an ActiveGate: a running sandbox changes only the gate of a
// missing artifact, never an invalid one, and never a later row's.
func TestTable_RunningSandboxTurnsAMissingResultIntoExecutionActive(t *testing.T) {
	rows := 0
	for _, st := range Table {
		for i, r := range st.Requirements {
			if r.ActiveGate == "" {
				continue
			}
			rows++
			for _, tc := range []struct {
				level   gateengine.Level
				sandbox bool
				want    string
			}{
				{gateengine.Missing, false, r.Gate},
				{gateengine.Missing, true, r.ActiveGate},
				{gateengine.Invalid, true, string(r.Evidence) + "_invalid"},
			} {
				t.Run(fmt.Sprintf("%s/%s/%d/sandbox=%v", st.Status, r.Evidence, tc.level, tc.sandbox), func(t *testing.T) {
					f := satisfiedBefore(st, i)
					f[r.Evidence] = tc.level
					if tc.sandbox {
						f[EvSandboxRunning] = gateengine.Satisfied
					}
					d := Evaluate(st.Status, f)
					if d.Gate != tc.want || d.NextAction == "" {
						t.Fatalf("gate = %s (next %s), want %s", d.Gate, d.NextAction, tc.want)
					}
					if tc.level == gateengine.Missing && d.NextAction != r.NextAction {
						t.Fatalf("next_action = %s, want %s", d.NextAction, r.NextAction)
					}
					if len(d.BlockedActions) == 0 || d.BlockedActions[0].Reason != tc.want {
						t.Fatalf("blocked_actions = %+v", d.BlockedActions)
					}
				})
			}
			if i+1 < len(st.Requirements) {
				f := satisfiedBefore(st, i+1)
				f[EvSandboxRunning] = gateengine.Satisfied
				if d := Evaluate(st.Status, f); d.Gate != st.Requirements[i+1].Gate {
					t.Errorf("%s: with %s satisfied and a sandbox running, gate = %s, want %s", st.Status, r.Evidence, d.Gate, st.Requirements[i+1].Gate)
				}
			}
		}
	}
	if d := Evaluate(Running, gateengine.Facts{EvSandboxRunning: gateengine.Satisfied}); d.Gate != "execution_active" || d.NextAction != "run_experiment_and_retain_results" {
		t.Fatalf("running with a sandbox and no result: %s/%s", d.Gate, d.NextAction)
	}
	if rows == 0 {
		t.Fatal("no row has an ActiveGate")
	}
}
