package research

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// inspectEnv runs SandboxInspect with act standing in for the host's
// activity.
func inspectEnv(t *testing.T, act func(context.Context, SandboxInspectRequest) (SandboxInspectResult, error)) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivityWithOptions(act, activity.RegisterOptions{Name: InspectSandboxActivity})
	return env
}

func TestSandboxInspect_ReadsOnTheHoldingHostsQueue(t *testing.T) {
	var queue string
	env := inspectEnv(t, func(ctx context.Context, in SandboxInspectRequest) (SandboxInspectResult, error) {
		queue = activity.GetInfo(ctx).TaskQueue
		return SandboxInspectResult{Files: []string{in.Op, in.UID}}, nil
	})
	env.ExecuteWorkflow(SandboxInspect, SandboxInspectRequest{HostQueue: testHostQueue, UID: "sbx_1", Op: InspectFiles, MaxFiles: 5})
	var out SandboxInspectResult
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if queue != testHostQueue || len(out.Files) != 2 || out.Files[0] != InspectFiles || out.Files[1] != "sbx_1" {
		t.Fatalf("ran on %q, answered %+v", queue, out)
	}
}

func TestSandboxInspect_PathErrorsAreNotRetriedOtherErrorsAre(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		attempts int32
	}{
		{"path outside", temporal.NewNonRetryableApplicationError("leaves", InspectErrPathOutside, nil), 1},
		{"not found", temporal.NewApplicationError("no such file", InspectErrNotFound), 1},
		{"too large", temporal.NewApplicationError("big", InspectErrTooLarge), 1},
		{"disk hiccup", errors.New("read: input/output error"), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			env := inspectEnv(t, func(context.Context, SandboxInspectRequest) (SandboxInspectResult, error) {
				calls.Add(1)
				return SandboxInspectResult{}, tc.err
			})
			env.ExecuteWorkflow(SandboxInspect, SandboxInspectRequest{HostQueue: testHostQueue, UID: "sbx_1", Op: InspectRead, Path: "x", Length: 10})
			err := env.GetWorkflowError()
			if err == nil || calls.Load() != tc.attempts {
				t.Fatalf("err %v after %d attempts, want an error after %d", err, calls.Load(), tc.attempts)
			}
			var app *temporal.ApplicationError
			if tc.attempts == 1 && (!errors.As(err, &app) || app.Message() == "") {
				t.Fatalf("typed error lost: %v", err)
			}
		})
	}
}
