package research

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// TestSandboxReaper_AHostsRunSweepsOnThatHost: a host's reaper run sends
// its one activity to that host's queue (where its local sandboxes live);
// the shared run stays on the workflow's queue.
func TestSandboxReaper_AHostsRunSweepsOnThatHost(t *testing.T) {
	for _, in := range []ReapInput{{HostQueue: testHostQueue}, {}} {
		var ts testsuite.WorkflowTestSuite
		env := ts.NewTestWorkflowEnvironment()
		env.RegisterWorkflowWithOptions(SandboxReaper, workflow.RegisterOptions{Name: SandboxReaperWorkflowName})
		env.RegisterActivityWithOptions(func(context.Context, ReapInput) (ReapResult, error) { return ReapResult{}, nil },
			activity.RegisterOptions{Name: ReapSandboxesActivity})
		env.OnActivity(ReapSandboxesActivity, mock.Anything, in).Return(ReapResult{Reaped: []string{"sbx_x"}}, nil).Once()
		var queue string
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) { queue = info.TaskQueue })
		env.ExecuteWorkflow(SandboxReaperWorkflowName, in)
		var out ReapResult
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		if err := env.GetWorkflowResult(&out); err != nil || len(out.Reaped) != 1 {
			t.Fatalf("result %+v %v", out, err)
		}
		if in.HostQueue != "" && queue != testHostQueue || in.HostQueue == "" && queue == testHostQueue {
			t.Fatalf("input %+v ran on %s", in, queue)
		}
		env.AssertExpectations(t)
	}
}

// TestSandboxReaper_AGoneHostsRunRetiresItsSchedule: when no worker took a
// host's sweep from its queue in time, the run asks (on the shared queue)
// to retire that host's schedule and succeeds once it is gone; a host
// that still polls keeps its schedule and the run reports the pickup
// failure; a sweep that failed otherwise retires nothing.
func TestSandboxReaper_AGoneHostsRunRetiresItsSchedule(t *testing.T) {
	pickup := temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START, nil)
	for _, c := range []struct {
		name      string
		reapErr   error
		retired   bool
		retires   bool
		wantError bool
	}{
		{"gone host", pickup, true, true, false},
		{"host still polls", pickup, false, true, true},
		{"sweep failed on the host", temporal.NewNonRetryableApplicationError("boom", "x", nil), false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ts testsuite.WorkflowTestSuite
			env := ts.NewTestWorkflowEnvironment()
			env.RegisterWorkflowWithOptions(SandboxReaper, workflow.RegisterOptions{Name: SandboxReaperWorkflowName})
			env.RegisterActivityWithOptions(func(context.Context, ReapInput) (ReapResult, error) { return ReapResult{}, nil },
				activity.RegisterOptions{Name: ReapSandboxesActivity})
			env.RegisterActivityWithOptions(func(context.Context, string) (bool, error) { return false, nil },
				activity.RegisterOptions{Name: RetireHostReaperActivity})
			in := ReapInput{HostQueue: testHostQueue}
			env.OnActivity(ReapSandboxesActivity, mock.Anything, in).Return(ReapResult{}, c.reapErr).Once()
			retireQueue := ""
			if c.retires {
				env.OnActivity(RetireHostReaperActivity, mock.Anything, testHostQueue).Return(c.retired, nil).Once()
			}
			env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
				if info.ActivityType.Name == RetireHostReaperActivity {
					retireQueue = info.TaskQueue
				}
			})
			env.ExecuteWorkflow(SandboxReaperWorkflowName, in)
			if err := env.GetWorkflowError(); (err != nil) != c.wantError {
				t.Fatalf("workflow error %v, want error %v", err, c.wantError)
			}
			if c.retires && (retireQueue == "" || retireQueue == testHostQueue) {
				t.Fatalf("retire ran on %q, want the shared queue", retireQueue)
			}
			env.AssertExpectations(t)
		})
	}
}
