package gates

import "github.com/gatehouse/gatehouse/workflows/research/gateengine"

// Level is how far a piece of evidence has come.
type Level = gateengine.Level

// Evidence levels.
const (
	Missing   = gateengine.Missing
	Invalid   = gateengine.Invalid
	Requested = gateengine.Requested
	Started   = gateengine.Started
	Satisfied = gateengine.Satisfied
)

// Facts are the evidence levels of one experiment; absent keys are Missing,
// except dependencies, which are Satisfied when the experiment has none.
type Facts = gateengine.Facts

// Blocked says why an action cannot run now.
type Blocked = gateengine.Blocked

// Decision is the evaluated gate of an experiment or a reflection.
type Decision = gateengine.Decision

// BlockedError refuses a transition the current gate does not allow.
type BlockedError = gateengine.BlockedError

// UnknownTransitionError names a transition that does not exist.
type UnknownTransitionError = gateengine.UnknownTransitionError

// Evaluate picks the gate of status given facts: the first unmet
// requirement names it; with all met, the forward transition does.
func Evaluate(status Status, f Facts) Decision { return machine.Evaluate(status, f) }

// Check decides whether transition name may run at status with facts and
// returns the move it makes.
func Check(status Status, f Facts, name string) (Move, error) { return machine.Check(status, f, name) }
