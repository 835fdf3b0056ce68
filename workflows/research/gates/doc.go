// Package gates is the research experiment's gate machine written as data:
// per status, an ordered list of requirements, each naming the gate code,
// next action and allowed tools shown while it is unmet, plus the status's
// forward transition once all are met. Evaluate walks the table; Check
// decides whether a transition may run; RouteVerdict sends a reviewer's verdict.
// The package is pure (no I/O, no Temporal) so workflows, the API and tests
// share one definition; it imports only gateengine.
package gates
