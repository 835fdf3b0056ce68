package research

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
	"github.com/gatehouse/gatehouse/internal/sandbox/kube"
	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestProvisionSandbox_PodChecksTheRowsTokenAndHistoryGetsNone: the
// provisioning activity gives the Pod the SHA-256 of the token in the
// sandbox's row, and its answer (what workflow history and the state
// query keep) holds no token: before, both the Pod spec and the answer
// held it in plaintext.
func TestProvisionSandbox_PodChecksTheRowsTokenAndHistoryGetsNone(t *testing.T) {
	ctx := context.Background()
	const token = "aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233"
	db := modelstest.SQLite(t)
	if err := models.CreateSandbox(ctx, db, models.Sandbox{UID: "sbx_tok1", ProjectID: "prj", Provider: kube.Name, InstanceType: "kube-small",
		PublicKey: "ssh-ed25519 AAAA k", InspectToken: token}); err != nil {
		t.Fatal(err)
	}
	cs := fake.NewClientset()
	p := &kube.Provider{Client: cs, Namespace: "sbx", AgentImage: "registry.example/gatehouse:1", Types: kube.DefaultTypes()}
	a := &SandboxActivities{DB: db, Providers: sandbox.NewProviders(p)}
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(a.ProvisionSandbox, activity.RegisterOptions{Name: wf.ProvisionSandboxActivity})
	in := wf.SandboxInput{UID: "sbx_tok1", Provider: kube.Name, InstanceType: "kube-small", CPU: 1, MemoryMB: 2048, PublicKey: "ssh-ed25519 AAAA k"}
	if _, err := env.ExecuteActivity(wf.ProvisionSandboxActivity, in); err == nil {
		t.Fatal("the first provision answered before the Pod ran")
	}
	pods := cs.CoreV1().Pods("sbx")
	pod, err := pods.Get(ctx, kube.PodName("sbx_tok1"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(pod); strings.Contains(string(raw), token) || !strings.Contains(string(raw), agent.TokenSHA256(token)) {
		t.Fatalf("the Pod spec holds the token, or not its hash: %s", raw)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.2.0.4"}
	if _, err := pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := env.ExecuteActivity(wf.ProvisionSandboxActivity, in)
	if err != nil {
		t.Fatal(err)
	}
	var ep wf.SandboxEndpoint
	if err := v.Get(&ep); err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(ep); ep.InspectURL == "" || ep.InspectToken != "" || strings.Contains(string(raw), token) {
		t.Fatalf("endpoint for history: %s", raw)
	}
}
