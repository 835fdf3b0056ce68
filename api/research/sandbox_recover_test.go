package research

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// strandRow stores a provisioning row as a request that crashed between
// storing it and starting its workflow left it, a minute ago.
func strandRow(t *testing.T, s *Service, uid string) {
	t.Helper()
	storeSandbox(t, s, uid, "kubernetes", models.SandboxProvisioning, "")
	then := time.Now().UTC().Add(-time.Minute)
	if err := s.DB.Model(&models.Sandbox{}).Where("uid = ?", uid).Updates(map[string]any{"created_at": then, "ssh_port": 0}).Error; err != nil {
		t.Fatal(err)
	}
}

// TestSandboxRequest_CrashBeforeTheWorkflowStartedStrandsNoRow: the row a
// crashed request left (no workflow) used to block every later request of
// the experiment forever ("already active"), and no release could end it.
// The next request starts its workflow, with the time it has left, so the
// pair is whole: the sandbox runs and can be used or released.
func TestSandboxRequest_CrashBeforeTheWorkflowStartedStrandsNoRow(t *testing.T) {
	s, tc := kubeService(t)
	strandRow(t, s, "sbx_strand01")
	tc.On("ExecuteWorkflow", mock.Anything, mock.MatchedBy(func(o client.StartWorkflowOptions) bool {
		return o.ID == wf.SandboxWorkflowID("sbx_strand01") && o.WorkflowIDReusePolicy == enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
	}), wf.SandboxWorkflowName, mock.MatchedBy(func(in wf.SandboxInput) bool {
		return in.UID == "sbx_strand01" && in.TimeLimit > 58*time.Minute && in.TimeLimit <= time.Hour && in.MaxLifetime == s.sandboxMaxLifetime()
	})).Run(func(args mock.Arguments) {
		_ = models.MirrorSandbox(context.Background(), s.DB, models.SandboxUpdate{UID: "sbx_strand01", Status: models.SandboxRunning,
			Host: "10.0.0.5", Port: 2222, User: "sandbox", Workdir: "/workspace", ExpiresAt: s.now().Add(time.Hour)}, s.now())
	}).Return((client.WorkflowRun)(nil), nil).Once()
	_, terr := request(s, map[string]any{"provider": "kubernetes"})
	if terr == nil || terr.Code != "conflict" || terr.Details["active_sandbox_uid"] != "sbx_strand01" {
		t.Fatalf("the request after the crash: %+v", terr)
	}
	tc.AssertExpectations(t)
	if sb, _ := models.GetSandbox(context.Background(), s.DB, "prj_k", "sbx_strand01"); sb.Status != models.SandboxRunning {
		t.Fatalf("the stranded row is %s", sb.Status)
	}
}

// TestSandboxRequest_StrandedRowWhoseWorkflowClosedIsFailed: a row whose
// workflow exists but closed without recording its end is failed, so it
// no longer blocks the next request, which then starts a new sandbox.
func TestSandboxRequest_StrandedRowWhoseWorkflowClosedIsFailed(t *testing.T) {
	s, tc := kubeService(t)
	strandRow(t, s, "sbx_strand02")
	tc.On("ExecuteWorkflow", mock.Anything, mock.MatchedBy(func(o client.StartWorkflowOptions) bool { return o.ID == wf.SandboxWorkflowID("sbx_strand02") }),
		wf.SandboxWorkflowName, mock.Anything).Return((client.WorkflowRun)(nil), serviceerror.NewWorkflowExecutionAlreadyStarted("closed", "", "")).Once()
	tc.On("DescribeWorkflowExecution", mock.Anything, wf.SandboxWorkflowID("sbx_strand02"), "").Return(&workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED}}, nil).Once()
	inputs := startsRunning(s, tc)
	got, terr := request(s, map[string]any{"provider": "kubernetes"})
	if terr != nil || got["status"] != "running" {
		t.Fatalf("the request after the closed workflow: %v %+v", got, terr)
	}
	if sb, _ := models.GetSandbox(context.Background(), s.DB, "prj_k", "sbx_strand02"); sb.Status != models.SandboxFailed || sb.LastError == "" {
		t.Fatalf("the stranded row: %+v", sb)
	}
	if len(*inputs) != 1 || (*inputs)[0].UID == "sbx_strand02" {
		t.Fatalf("started %+v", *inputs)
	}
}
