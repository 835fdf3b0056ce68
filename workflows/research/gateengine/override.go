package gateengine

import "slices"

// Override is a condition of a stage that changes only its next action:
// while When is Satisfied and Transition is allowed at the gate the stage
// is at, NextAction replaces the gate's own. The gate, its tools and the
// allowed transitions stay as they are, so an override never changes what
// Check accepts: it points the agent at a step already open to it (a side
// transition, say abandon once a reviewer failed the work). Adding such a
// situation is adding an override to a stage.
type Override struct {
	// When is the condition's evidence; it is no requirement and is never
	// reported missing.
	When Evidence
	// NextAction is the next action while the override holds.
	NextAction string
	// Transition is the transition NextAction names; while it is not
	// allowed (a side transition locked) the override does not hold.
	Transition string
}

// override points d at the next action of the first override that holds.
func override(d *Decision, overrides []Override, f Facts) {
	for _, o := range overrides {
		if f[o.When] == Satisfied && slices.Contains(d.Transitions, o.Transition) {
			d.NextAction = o.NextAction
			return
		}
	}
}
