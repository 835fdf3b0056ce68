package kube

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
)

// With an agent image, the Pod copies the gatehouse binary in with an init
// container and runs the sandbox agent in the sandbox image, with the
// sandbox's key, limits and inspection token in its environment and both
// ports declared.
func TestRenderPod_WithAgentRunsTheSandboxAgent(t *testing.T) {
	p := &Provider{Namespace: "sandboxes", AgentImage: "registry.example/gatehouse@sha256:abc"}
	pod := p.RenderPod(spec, "tok-123")
	if len(pod.Spec.InitContainers) != 1 || pod.Spec.InitContainers[0].Image != p.AgentImage ||
		pod.Spec.InitContainers[0].Command[1] != "sandbox-agent" || pod.Spec.InitContainers[0].Command[2] != "install" {
		t.Fatalf("init containers: %+v", pod.Spec.InitContainers)
	}
	c := pod.Spec.Containers[0]
	if c.Image != DefaultImage || len(c.Command) != 3 || c.Command[0] != pod.Spec.InitContainers[0].Command[3] || c.Command[2] != "serve" {
		t.Fatalf("sandbox container runs %v in %s", c.Command, c.Image)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	want := map[string]string{agent.EnvUID: spec.UID, agent.EnvToken: "tok-123", agent.EnvRoot: Workdir, agent.EnvSSHPort: "2222",
		agent.EnvPort: "2223", agent.EnvTimeLimit: "3600", agent.EnvCPU: "1.5",
		agent.EnvPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample agent@host"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("env %s = %q, want %q", k, env[k], v)
		}
	}
	if _, capped := env[agent.EnvMemoryMB]; capped {
		t.Error("the Pod's cgroup limits memory; commands must get no address-space cap on top")
	}
	if len(c.Ports) != 2 || c.Ports[1].ContainerPort != InspectPort || len(c.VolumeMounts) != 2 || len(pod.Spec.Volumes) != 2 {
		t.Fatalf("ports %v mounts %v volumes %v", c.Ports, c.VolumeMounts, pod.Spec.Volumes)
	}
	psc := pod.Spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 || psc.FSGroup == nil {
		t.Fatalf("pod security context: %+v", psc)
	}
	for _, sc := range []*corev1.SecurityContext{c.SecurityContext, pod.Spec.InitContainers[0].SecurityContext} {
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 {
			t.Fatalf("container security context: %+v", sc)
		}
	}
}

// Provisioning in agent mode answers the inspection URL and the token of
// the Pod that exists: a retried provision (a new token drawn) still
// answers the first Pod's token, which its agent checks.
func TestProvider_AgentProvisionAnswersThePodsInspectionToken(t *testing.T) {
	cs := fake.NewClientset()
	p := &Provider{Client: cs, Namespace: "sandboxes", AgentImage: "registry.example/gatehouse:1.0.0"}
	ctx := context.Background()
	first := tokenOf(firstProvisionThenRun(t, p, cs.CoreV1().Pods("sandboxes")))
	if len(first) != 64 {
		t.Fatalf("pod token %q", first)
	}
	ep, err := p.Provision(ctx, spec)
	if err != nil || ep.InspectToken != first || ep.InspectURL != "http://10.1.2.3:2223" || ep.Workdir != "/workspace/sbx_AB12/work" {
		t.Fatalf("endpoint %+v %v", ep, err)
	}
}
