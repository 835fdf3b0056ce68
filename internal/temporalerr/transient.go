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
// aborted the call, the workflow has not run its first task yet, or the
// server cancelled the call because the poller it had handed the task to
// went away (a worker killed as it took a query: matching answers the
// dead poll's own cancellation). An answer (NotFound, InvalidArgument, a
// query handler's error) is not. A caller whose own context ended must
// check that first: its cancellation is not worth a retry.
func Transient(err error) bool {
	var (
		deadline *serviceerror.DeadlineExceeded
		down     *serviceerror.Unavailable
		busy     *serviceerror.ResourceExhausted
		notReady *serviceerror.WorkflowNotReady
		aborted  *serviceerror.Aborted
		dropped  *serviceerror.Canceled
	)
	return errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &deadline) || errors.As(err, &down) || errors.As(err, &busy) ||
		errors.As(err, &notReady) || errors.As(err, &aborted) || errors.As(err, &dropped)
}
