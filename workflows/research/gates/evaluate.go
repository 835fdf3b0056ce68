package gates

import "github.com/gatehouse/gatehouse/workflows/research/gateengine"

// Evaluate picks the gate of status given facts: the first unmet
// requirement names it; with all met, the forward transition does.
func Evaluate(status Status, f gateengine.Facts) gateengine.Decision {
	return machine.Evaluate(status, f)
}

// Check decides whether transition name may run at status with facts and
// returns the move it makes.
func Check(status Status, f gateengine.Facts, name string) (gateengine.Move[Status], error) {
	return machine.Check(status, f, name)
}
