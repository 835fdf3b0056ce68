package research

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/testsuite"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/kube"
	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// reap runs ReapSandboxes as a worker would.
func reap(t *testing.T, a *SandboxActivities, in wf.ReapInput) (wf.ReapResult, error) {
	t.Helper()
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(a.ReapSandboxes, activity.RegisterOptions{Name: wf.ReapSandboxesActivity})
	var out wf.ReapResult
	v, err := env.ExecuteActivity(wf.ReapSandboxesActivity, in)
	if err == nil {
		err = v.Get(&out)
	}
	return out, err
}

func described(status enumspb.WorkflowExecutionStatus) *workflowservice.DescribeWorkflowExecutionResponse {
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: status}}
}

// TestReapSandboxes_DestroysPodsWithoutALiveWorkflow: Pods outlived their
// workflows (one terminated by hand, one Temporal never knew, one whose
// history hit the limit) with nothing to tear them down. The reaper
// deletes exactly those, ends their rows, and leaves the Pod of a running
// workflow and the Pod whose workflow it could not read.
func TestReapSandboxes_DestroysPodsWithoutALiveWorkflow(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	p := &kube.Provider{Client: cs, Namespace: "sbx", Types: kube.DefaultTypes()}
	db := modelstest.SQLite(t)
	tc := &mocks.Client{}
	status := map[string]enumspb.WorkflowExecutionStatus{
		"sbx_live": enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, "sbx_killed": enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED,
		"sbx_done": enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED}
	for _, uid := range []string{"sbx_live", "sbx_killed", "sbx_done", "sbx_unknown", "sbx_unreadable"} {
		if _, err := cs.CoreV1().Pods("sbx").Create(ctx, p.RenderPod(sandbox.Spec{UID: uid, Provider: kube.Name}, ""), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		row := models.Sandbox{UID: uid, ProjectID: "prj", Provider: kube.Name, InstanceType: "kube-small", PublicKey: "k"}
		if uid == "sbx_killed" || uid == "sbx_live" {
			row.ExperimentID = "exp_" + uid
		}
		if err := models.CreateSandbox(ctx, db, row); err != nil {
			t.Fatal(err)
		}
		switch st, known := status[uid]; {
		case known:
			tc.On("DescribeWorkflowExecution", mock.Anything, wf.SandboxWorkflowID(uid), "").Return(described(st), nil)
		case uid == "sbx_unknown":
			tc.On("DescribeWorkflowExecution", mock.Anything, wf.SandboxWorkflowID(uid), "").Return(nil, serviceerror.NewNotFound("no such workflow"))
		default:
			tc.On("DescribeWorkflowExecution", mock.Anything, wf.SandboxWorkflowID(uid), "").Return(nil, serviceerror.NewUnavailable("temporal down"))
		}
	}
	// A Pod of someone else's (no sandbox label) is none of the reaper's business.
	if _, err := cs.CoreV1().Pods("sbx").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "sbx"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The attached experiment of a reaped sandbox learns it ended
	// abnormally (retry_running); a live one's hears nothing.
	tc.On("SignalWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_sbx_killed"), "", wf.SandboxActivitySignal,
		wf.SandboxActivity{SandboxUID: "sbx_killed", Ended: wf.SandboxEndReaped}).Return(nil).Once()
	a := &SandboxActivities{DB: db, Providers: sandbox.NewProviders(p), Temporal: tc}
	out, err := reap(t, a, wf.ReapInput{})
	if err != nil {
		t.Fatal(err)
	}
	tc.AssertExpectations(t)
	want := map[string]bool{"sbx_killed": true, "sbx_done": true, "sbx_unknown": true}
	if len(out.Reaped) != len(want) || len(out.Unchecked) != 1 || out.Unchecked[0] != "sbx_unreadable" {
		t.Fatalf("reaped %v unchecked %v", out.Reaped, out.Unchecked)
	}
	list, _ := cs.CoreV1().Pods("sbx").List(ctx, metav1.ListOptions{})
	left := map[string]bool{}
	for _, pod := range list.Items {
		left[pod.Name] = true
	}
	if len(left) != 3 || !left[kube.PodName("sbx_live")] || !left[kube.PodName("sbx_unreadable")] || !left["other"] {
		t.Fatalf("pods left: %v", left)
	}
	for _, uid := range []string{"sbx_live", "sbx_killed", "sbx_done", "sbx_unknown", "sbx_unreadable"} {
		sb, err := models.GetSandbox(ctx, db, "prj", uid)
		if err != nil {
			t.Fatal(err)
		}
		if ended := sb.Status == models.SandboxTerminated; ended != want[uid] {
			t.Errorf("%s row is %s", uid, sb.Status)
		}
	}
}

// TestReapSandboxes_HostQueueSweepsOnlyTheLocalProvider: a host's run
// sweeps its local sandboxes and not the cluster's Pods, and the shared
// run the reverse.
func TestReapSandboxes_HostQueueSweepsOnlyTheLocalProvider(t *testing.T) {
	local, pods := &holder{name: sandbox.LocalName, uids: []string{"sbx_l"}}, &holder{name: kube.Name, uids: []string{"sbx_k"}}
	tc := &mocks.Client{}
	tc.On("DescribeWorkflowExecution", mock.Anything, mock.Anything, "").Return(nil, serviceerror.NewNotFound("gone"))
	a := &SandboxActivities{Providers: sandbox.NewProviders(local, pods), Temporal: tc}
	if out, err := reap(t, a, wf.ReapInput{HostQueue: "gatehouse-host-a"}); err != nil || len(out.Reaped) != 1 || out.Reaped[0] != "sbx_l" {
		t.Fatalf("host run: %+v %v", out, err)
	}
	if out, err := reap(t, a, wf.ReapInput{}); err != nil || len(out.Reaped) != 1 || out.Reaped[0] != "sbx_k" {
		t.Fatalf("shared run: %+v %v", out, err)
	}
	if len(local.destroyed) != 1 || len(pods.destroyed) != 1 {
		t.Fatalf("destroyed local %v pods %v", local.destroyed, pods.destroyed)
	}
}

// TestReapSandboxes_AFailedNoticeIsSentAgainBeforeTheMachineGoes: the
// experiment of an orphaned sandbox could not be told (Temporal
// unavailable for that signal). The pass keeps the machine and lists it
// unchecked, its row already ended; the next pass tells the experiment and
// only then destroys the machine. (Destroying first lost the notice for
// good: a destroyed machine is never listed again.)
func TestReapSandboxes_AFailedNoticeIsSentAgainBeforeTheMachineGoes(t *testing.T) {
	ctx := context.Background()
	db := modelstest.SQLite(t)
	if err := models.CreateSandbox(ctx, db, models.Sandbox{UID: "sbx_orphan", ProjectID: "prj", Provider: kube.Name,
		InstanceType: "kube-small", PublicKey: "k", ExperimentID: "exp_1"}); err != nil {
		t.Fatal(err)
	}
	pods := &holder{name: kube.Name, uids: []string{"sbx_orphan"}}
	tc := &mocks.Client{}
	tc.On("DescribeWorkflowExecution", mock.Anything, wf.SandboxWorkflowID("sbx_orphan"), "").Return(nil, serviceerror.NewNotFound("gone"))
	notice := wf.SandboxActivity{SandboxUID: "sbx_orphan", Ended: wf.SandboxEndReaped}
	tc.On("SignalWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_1"), "", wf.SandboxActivitySignal, notice).
		Return(serviceerror.NewUnavailable("temporal down")).Once()
	tc.On("SignalWorkflow", mock.Anything, wf.ExperimentWorkflowID("exp_1"), "", wf.SandboxActivitySignal, notice).Return(nil).Once()
	a := &SandboxActivities{DB: db, Providers: sandbox.NewProviders(pods), Temporal: tc}

	out, err := reap(t, a, wf.ReapInput{})
	if err != nil || len(out.Reaped) != 0 || len(out.Unchecked) != 1 || len(pods.destroyed) != 0 {
		t.Fatalf("first pass: %+v %v, destroyed %v", out, err, pods.destroyed)
	}
	sb, err := models.GetSandbox(ctx, db, "prj", "sbx_orphan")
	if err != nil || sb.Status != models.SandboxTerminated || sb.LastError != models.ReapedReason {
		t.Fatalf("row after the first pass: %+v %v", sb, err)
	}
	out, err = reap(t, a, wf.ReapInput{})
	if err != nil || len(out.Reaped) != 1 || len(pods.destroyed) != 1 {
		t.Fatalf("second pass: %+v %v, destroyed %v", out, err, pods.destroyed)
	}
	tc.AssertExpectations(t)
	if out, err := reap(t, a, wf.ReapInput{}); err != nil || len(out.Reaped)+len(out.Unchecked) != 0 {
		t.Fatalf("third pass, nothing held: %+v %v", out, err)
	}
}

// holder is a provider holding uids, recording what it destroys.
type holder struct {
	sandbox.Unavailable
	name      string
	uids      []string
	destroyed []string
}

func (h *holder) Name() string                              { return h.name }
func (h *holder) Holding(context.Context) ([]string, error) { return h.uids, nil }
func (h *holder) Destroy(_ context.Context, uid string) error {
	h.destroyed = append(h.destroyed, uid)
	h.uids = slices.DeleteFunc(h.uids, func(u string) bool { return u == uid })
	return nil
}
