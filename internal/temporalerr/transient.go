// Package temporalerr classifies errors from Temporal calls.
package temporalerr

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
)

// Transient reports whether a failed call to Temporal is worth making
// again: the worker holding the workflow died ("query timed out before a
// worker could process it"), the service is briefly unavailable, busy or
// aborted the call, or the workflow has not run its first task yet. An
// answer (NotFound, InvalidArgument, a query handler's error) is not.
func Transient(err error) bool {
	var (
		deadline *serviceerror.DeadlineExceeded
		down     *serviceerror.Unavailable
		busy     *serviceerror.ResourceExhausted
		notReady *serviceerror.WorkflowNotReady
		aborted  *serviceerror.Aborted
	)
	return errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &deadline) || errors.As(err, &down) || errors.As(err, &busy) ||
		errors.As(err, &notReady) || errors.As(err, &aborted)
}
