package research

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
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
