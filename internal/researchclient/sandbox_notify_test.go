package researchclient

import (
	"context"
	"errors"
	"testing"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/mocks"

	wf "github.com/gatehouse/gatehouse/workflows/research"
)

func TestNotifySandboxActivitySignalsTheExperiment(t *testing.T) {
	ctx := context.Background()
	tc := &mocks.Client{}
	tc.On("SignalWorkflow", ctx, wf.ExperimentWorkflowID("exp_1"), "", wf.SandboxActivitySignal,
		wf.SandboxActivity{SandboxUID: "sbx_1", Running: true}).Return(nil).Once()
	if err := NotifySandboxActivity(ctx, tc, "exp_1", "sbx_1", true); err != nil {
		t.Fatal(err)
	}
	tc.AssertExpectations(t)
}

func TestNotifySandboxActivityErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("unavailable")
	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"ended workflow is no error", serviceerror.NewNotFound("gone"), nil},
		{"other errors are returned", boom, boom},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := &mocks.Client{}
			tc.On("SignalWorkflow", ctx, wf.ExperimentWorkflowID("exp_1"), "", wf.SandboxActivitySignal,
				wf.SandboxActivity{SandboxUID: "sbx_1"}).Return(tt.err).Once()
			if err := NotifySandboxActivity(ctx, tc, "exp_1", "sbx_1", false); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestNotifySandboxActivityWithoutExperimentSendsNothing(t *testing.T) {
	tc := &mocks.Client{}
	if err := NotifySandboxActivity(context.Background(), tc, "", "sbx_1", true); err != nil {
		t.Fatal(err)
	}
	tc.AssertNotCalled(t, "SignalWorkflow")
	if err := NotifySandboxActivity(context.Background(), nil, "exp_1", "sbx_1", true); err != nil {
		t.Fatal(err)
	}
}
