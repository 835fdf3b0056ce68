// Package reflectgates is the research reflection wave's gate machine
// written as data, the sibling of package gates: per status an ordered
// list of requirements (lens docs, synthesis artifacts, reviews, the
// consolidation proposal, the central advance), each naming the gate code,
// next action and allowed tools shown while it is unmet, plus the status's
// forward transition once all are met. Evaluate walks the table; Check
// decides whether a transition may run; RouteVerdict sends a reviewer's
// verdict. It is pure (no I/O, no Temporal) and shares gateengine's result types.
package reflectgates
