package research

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/mocks"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// An ended local sandbox held by another host is read through the host
// queue its row mirrors: its workflow, purged by Temporal after the
// namespace's retention, is not asked (an unexpected query fails the mock).
func TestSandboxRuns_EndedSandboxIsReadThroughItsMirroredHostQueueWithoutItsWorkflow(t *testing.T) {
	s, tc := kubeService(t)
	storeSandbox(t, s, "sbx_purged01", "local", models.SandboxTerminated, "127.0.0.1")
	if err := s.DB.Model(&models.Sandbox{}).Where("uid = ?", "sbx_purged01").Update("host_queue", "gatehouse-host-b").Error; err != nil {
		t.Fatal(err)
	}
	run := &mocks.WorkflowRun{}
	run.On("Get", mock.Anything, mock.Anything).Return(nil)
	tc.On("ExecuteWorkflow", mock.Anything, mock.Anything, wf.SandboxInspectWorkflowName, mock.MatchedBy(func(in wf.SandboxInspectRequest) bool {
		return in.UID == "sbx_purged01" && in.HostQueue == "gatehouse-host-b" && in.Op == wf.InspectRuns
	})).Return(run, nil).Once()
	agent := platform.Principal{CredentialID: "a", Role: platform.RoleAgent, AllProjects: true}
	if _, terr := s.Invoke(context.Background(), agent, "sandbox.runs", json.RawMessage(`{"project_id":"prj_k","sandbox_uid":"sbx_purged01"}`)); terr != nil {
		t.Fatalf("sandbox.runs of an ended sandbox whose workflow was purged: %+v", terr)
	}
	tc.AssertExpectations(t)
	tc.AssertNotCalled(t, "QueryWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything)
}
