package temporalerr

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/api/serviceerror"
)

func TestTransient(t *testing.T) {
	for err, want := range map[error]bool{
		serviceerror.NewDeadlineExceeded("query timed out before a worker could process it"): true,
		serviceerror.NewUnavailable("frontend down"):                                         true,
		serviceerror.NewResourceExhausted(0, "busy"):                                         true,
		serviceerror.NewWorkflowNotReady("no first task yet"):                                true,
		serviceerror.NewAborted("aborted"):                                                   true,
		serviceerror.NewCanceled("the poller that took the query went away"):                 true,
		fmt.Errorf("wrapped: %w", context.DeadlineExceeded):                                  true,
		serviceerror.NewNotFound("workflow gone"):                                            false,
		serviceerror.NewInvalidArgument("bad query"):                                         false,
		errors.New("query handler failed"):                                                   false,
	} {
		if got := Transient(err); got != want {
			t.Errorf("Transient(%v) = %v, want %v", err, got, want)
		}
	}
}
