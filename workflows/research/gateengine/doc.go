// Package gateengine is the one engine behind the research gate machines
// (packages gates and reflectgates). A machine is data: per open status an
// ordered list of requirements, each naming the gate code, next action and
// allowed tools shown while it is unmet, plus the status's forward
// transition once all are met, the side transitions it always offers and
// the overrides that point the next action at one of those while a
// condition holds.
// Evaluate walks a machine's table, Check decides whether a transition may
// run, and RouteVerdict sends a reviewer's verdict along a domain's routes.
// Each domain keeps only its table and its verdict routes. The package is
// pure (no I/O, no Temporal) and imports nothing of Gatehouse's.
package gateengine
