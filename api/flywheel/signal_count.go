package flywheel

import (
	"errors"

	"go.temporal.io/api/serviceerror"

	"github.com/gatehouse/gatehouse/internal/telemetry"
)

// signalHeartbeat is the kind under which heartbeat signals are counted
// (grants and outputs count under their notice kinds).
const signalHeartbeat = "heartbeat"

// countSignal counts one signal of kind in telemetry.FlywheelSignals by
// the error it got: sent when nil, ended when the workflow had closed
// (workflowEnded), failed otherwise.
func countSignal(kind string, err error) {
	outcome := "sent"
	switch {
	case workflowEnded(err):
		outcome = "ended"
	case err != nil:
		outcome = "failed"
	}
	telemetry.FlywheelSignals.WithLabelValues(kind, outcome).Inc()
}

// workflowEnded tells whether a signal failed because its workflow had
// closed: it needs no telling any more.
func workflowEnded(err error) bool {
	var gone *serviceerror.NotFound
	return errors.As(err, &gone)
}
