package gateengine

import (
	"slices"
	"testing"
)

// dropIt is the override of the machine overridden: while "gave_up" is
// Satisfied, the next action names the side transition drop.
var dropIt = []Override{{When: "gave_up", NextAction: "drop_it", Transition: "drop"}}

// overridden is the toy machine with dropIt, plus a stage "plain" whose
// forward gate no advance locks.
var overridden = &Machine[toyStatus]{
	Noun: "toy",
	Stages: []Stage[toyStatus]{{
		Status: toy.Stages[0].Status, Requirements: toy.Stages[0].Requirements, Forward: toy.Stages[0].Forward, Side: toy.Stages[0].Side,
		Overrides: dropIt,
	}, {
		Status: "plain", Requirements: toy.Stages[0].Requirements[:1], Forward: toy.Stages[0].Forward, Side: toy.Stages[0].Side,
		Overrides: dropIt,
	}},
	Moves: toy.Moves, Aliases: toy.Aliases, TransitionTool: toy.TransitionTool, StatusTool: toy.StatusTool,
}

// TestOverride_ChangesOnlyTheNextActionWhileItsConditionHolds: at an
// unmet row and at the forward gate the override names its next action
// and leaves the gate, tools, transitions and missing evidence as they
// were; a condition not Satisfied, or a locked transition, leaves the
// next action alone.
func TestOverride_ChangesOnlyTheNextActionWhileItsConditionHolds(t *testing.T) {
	all := Facts{"doc": Satisfied, "review": Satisfied, "advance": Satisfied}
	cases := []struct {
		name string
		f    Facts
		next string
	}{
		{"unmet row", Facts{"gave_up": Satisfied}, "drop_it"},
		{"later row", merged(all, Facts{"advance": Missing, "gave_up": Satisfied}), "drop_it"},
		{"condition only requested", Facts{"gave_up": Requested}, "write_doc"},
		{"transition locked", merged(all, Facts{"advance": Requested, "gave_up": Satisfied}), "wait_advance"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plain := map[Evidence]Level{}
			for k, v := range c.f {
				if k != "gave_up" {
					plain[k] = v
				}
			}
			got, want := overridden.Evaluate("open", c.f), toy.Evaluate("open", plain)
			if got.NextAction != c.next {
				t.Fatalf("next_action %s, want %s", got.NextAction, c.next)
			}
			got.NextAction = want.NextAction
			if !equalDecisions(got, want) {
				t.Fatalf("the override changed more than the next action:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestOverride_HoldsAtTheForwardGate: with every requirement met the
// override still names its transition, and the forward one stays allowed.
func TestOverride_HoldsAtTheForwardGate(t *testing.T) {
	d := overridden.Evaluate("plain", Facts{"doc": Satisfied, "gave_up": Satisfied})
	if d.Gate != "ready" || d.NextAction != "drop_it" || !slices.Equal(d.Transitions, []string{"finish", "drop"}) {
		t.Fatalf("forward gate with the override: %+v", d)
	}
}

// TestOverride_NeverChangesWhatCheckAccepts walks every level of every
// row with the condition on and off: each move is accepted or refused
// alike.
func TestOverride_NeverChangesWhatCheckAccepts(t *testing.T) {
	levels := []Level{Missing, Invalid, Requested, Started, Satisfied}
	for _, doc := range levels {
		for _, adv := range levels {
			for _, cond := range []Level{Missing, Satisfied} {
				f := Facts{"doc": doc, "review": Satisfied, "advance": adv, "gave_up": cond}
				for _, mv := range toy.Moves {
					_, errOver := overridden.Check("open", f, mv.Name)
					_, errPlain := toy.Check("open", f, mv.Name)
					if (errOver == nil) != (errPlain == nil) {
						t.Fatalf("doc %d advance %d condition %d: %s accepted %v with the override, %v without", doc, adv, cond, mv.Name, errOver == nil, errPlain == nil)
					}
				}
			}
		}
	}
}

func merged(a, b Facts) Facts {
	f := Facts{}
	for k, v := range a {
		f[k] = v
	}
	for k, v := range b {
		f[k] = v
	}
	return f
}

func equalDecisions(a, b Decision) bool {
	return a.Gate == b.Gate && a.NextAction == b.NextAction && slices.Equal(a.AllowedTools, b.AllowedTools) &&
		slices.Equal(a.Transitions, b.Transitions) && slices.Equal(a.BlockedActions, b.BlockedActions) &&
		slices.Equal(a.MissingEvidence, b.MissingEvidence) && a.ArtifactRole == b.ArtifactRole &&
		a.ReviewEvidence == b.ReviewEvidence && a.ReviewLevel == b.ReviewLevel
}
