package reflectgates

import (
	"maps"
	"slices"
	"testing"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// TestOverrides_AFailedReviewNamesAbandon: at each gate a failed
// reflection or consolidation review returns the wave to, the next action
// is abandon_reflection, the abandon transition is allowed and the gate
// and tools stay the gate's; an advance in flight, which locks abandon,
// keeps the gate's own next action.
func TestOverrides_AFailedReviewNamesAbandon(t *testing.T) {
	met := func(st Status) gateengine.Facts {
		s, _ := StageOf(st)
		return satisfiedBefore(s, len(s.Requirements))
	}
	cases := []struct {
		name       string
		status     Status
		f          gateengine.Facts
		gate, next string
	}{
		{"reflection review failed, new attempt", Reflecting, gateengine.Facts{EvReflectionFailed: gateengine.Satisfied}, "reflection_roster_incomplete", "abandon_reflection"},
		{"reflection review failed, same attempt", Synthesizing, with(met(Synthesizing), EvReflectionFailed), "reflection_review_required", "abandon_reflection"},
		{"consolidation review failed", Consolidating, gateengine.Facts{EvConsolidationFailed: gateengine.Satisfied}, "consolidation_proposal_required", "abandon_reflection"},
		{"advance in flight", Consolidating, with(gateengine.Facts{EvProposal: gateengine.Satisfied, EvConsolidationReview: gateengine.Satisfied,
			EvCentralAdvance: gateengine.Requested}, EvConsolidationFailed), "central_advance_required", "wait_for_central_advance"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Evaluate(c.status, c.f)
			if d.Gate != c.gate || d.NextAction != c.next {
				t.Fatalf("gate/next = %s/%s, want %s/%s", d.Gate, d.NextAction, c.gate, c.next)
			}
			if c.next == "abandon_reflection" && !slices.Contains(d.Transitions, TAbandon) {
				t.Fatalf("abandon not allowed: %v", d.Transitions)
			}
			if c.next == "abandon_reflection" {
				if mv, err := Check(c.status, c.f, c.next); err != nil || mv.Name != TAbandon {
					t.Fatalf("the next_action %s sent as the transition: %+v %v, want abandon", c.next, mv, err)
				}
			}
			plain := Evaluate(c.status, without(c.f))
			if d.Gate != plain.Gate || !slices.Equal(d.AllowedTools, plain.AllowedTools) || !slices.Equal(d.Transitions, plain.Transitions) {
				t.Fatalf("the override changed more than the next action: %+v vs %+v", d, plain)
			}
		})
	}
}

// TestOverrides_NeverChangeWhatCheckAccepts: in every situation of every
// stage, each move is accepted or refused alike with and without the
// override conditions.
func TestOverrides_NeverChangeWhatCheckAccepts(t *testing.T) {
	for _, st := range Table {
		for _, f := range situations(st) {
			for _, mv := range Moves {
				_, errWith := Check(st.Status, f, mv.Name)
				_, errPlain := Check(st.Status, without(f), mv.Name)
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
	delete(g, EvReflectionFailed)
	delete(g, EvConsolidationFailed)
	return g
}
