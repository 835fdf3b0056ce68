package kube

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse/gatehouse/internal/sandbox"
)

var spec = sandbox.Spec{UID: "sbx_AB12", Provider: Name, InstanceType: "gpu-small", CPU: 1.5, MemoryMB: 4096, GPU: 1,
	PublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample agent@host\n", TimeLimit: time.Hour}

func TestRenderPod_LimitsKeyAndIsolation(t *testing.T) {
	p := &Provider{Namespace: "sandboxes"}
	pod := p.RenderPod(spec, "")
	raw, err := yaml.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Name != "sbx-sbx-ab12" || pod.Namespace != "sandboxes" || pod.Labels[LabelUID] != "sbx_ab12" {
		t.Fatalf("metadata:\n%s", raw)
	}
	c := pod.Spec.Containers[0]
	lim := c.Resources.Limits
	if lim.Cpu().MilliValue() != 1500 || lim.Memory().Value() != 4096<<20 || lim.Name(gpuResource, "").Value() != 1 {
		t.Fatalf("limits %v", lim)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["PUBLIC_KEY"] != "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample agent@host" || env["PASSWORD_ACCESS"] != "false" || env["USER_NAME"] != sandbox.LocalUser {
		t.Fatalf("env %v", env)
	}
	if *pod.Spec.AutomountServiceAccountToken || c.Image != DefaultImage || c.WorkingDir != Workdir || c.Ports[0].ContainerPort != SSHPort {
		t.Fatalf("pod:\n%s", raw)
	}
}

func TestProvider_ProvisionWaitsForThePodThenDestroyIsIdempotent(t *testing.T) {
	cs := fake.NewClientset()
	p := &Provider{Client: cs, Namespace: "sandboxes"}
	ctx := context.Background()
	pods := cs.CoreV1().Pods("sandboxes")
	firstProvisionThenRun(t, p, pods)
	ep, err := p.Provision(ctx, spec) // the retry finds the same Pod
	if err != nil || ep != (sandbox.Endpoint{Host: "10.1.2.3", Port: SSHPort, User: sandbox.LocalUser, Workdir: Workdir}) {
		t.Fatalf("endpoint %+v %v", ep, err)
	}
	if list, _ := pods.List(ctx, metav1.ListOptions{}); len(list.Items) != 1 {
		t.Fatalf("%d pods after a retried provision", len(list.Items))
	}
	if err := p.Health(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := p.Destroy(ctx, spec.UID); err != nil {
			t.Fatalf("destroy %d: %v", i, err)
		}
	}
	if list, _ := pods.List(ctx, metav1.ListOptions{}); len(list.Items) != 0 {
		t.Fatalf("%d pods after destroy", len(list.Items))
	}
}

// firstProvisionThenRun makes the first provision of spec (answered
// ErrNotReady: the Pod was just created), then marks the Pod running at
// 10.1.2.3 as the cluster would, and returns it as created.
func firstProvisionThenRun(t *testing.T, p *Provider, pods typedcorev1.PodInterface) *corev1.Pod {
	t.Helper()
	return firstProvisionThenRunSpec(t, p, pods, spec)
}

// firstProvisionThenRunSpec is firstProvisionThenRun for spec s.
func firstProvisionThenRunSpec(t *testing.T, p *Provider, pods typedcorev1.PodInterface, s sandbox.Spec) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	if _, err := p.Provision(ctx, s); !errors.Is(err, ErrNotReady) {
		t.Fatalf("first provision: %v", err)
	}
	pod, err := pods.Get(ctx, PodName(s.UID), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := pod.DeepCopy()
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.2.3"}
	if _, err := pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return created
}
