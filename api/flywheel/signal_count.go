package flywheel

import "github.com/gatehouse/gatehouse/internal/telemetry"

// signalHeartbeat is the kind under which heartbeat signals are counted
// (grants and outputs count under their notice kinds).
const signalHeartbeat = "heartbeat"

// countSignal counts one signal of kind in telemetry.FlywheelSignals: sent
// when err is nil, ended when the workflow had closed, failed otherwise.
func countSignal(kind string, err error, ended bool) {
	outcome := "sent"
	switch {
	case ended:
		outcome = "ended"
	case err != nil:
		outcome = "failed"
	}
	telemetry.FlywheelSignals.WithLabelValues(kind, outcome).Inc()
}
