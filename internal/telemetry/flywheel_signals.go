package telemetry

import "github.com/prometheus/client_golang/prometheus"

// FlywheelSignals counts the signals the flywheel sends its rollout
// workflows off the request path, by kind (grant, output, heartbeat) and
// outcome (sent; ended: the workflow had closed; failed: to be retried,
// or left to the workflow's own expiry check). Their rate is Temporal's
// share of a flywheel load: every claim, heartbeat and output is decided
// in the database, and only these reach Temporal. Every registry New
// builds exports it.
var FlywheelSignals = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "gatehouse_flywheel_workflow_signals_total",
	Help: "Signals sent to flywheel rollout workflows, by kind (grant, output, heartbeat) and outcome (sent, ended, failed).",
}, []string{"kind", "outcome"})
