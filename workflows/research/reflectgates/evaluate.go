package reflectgates

import (
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// UnknownTransitionError names a transition that does not exist.
type UnknownTransitionError = gateengine.UnknownTransitionError

// Evaluate picks the gate of status given facts: the first unmet
// requirement names it; with all met, the forward transition does.
func Evaluate(status Status, f gates.Facts) gates.Decision { return machine.Evaluate(status, f) }

// Check decides whether transition name may run at status with facts and
// returns the move it makes; a refusal is a *gates.BlockedError.
func Check(status Status, f gates.Facts, name string) (Move, error) {
	return machine.Check(status, f, name)
}
