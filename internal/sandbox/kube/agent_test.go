package kube

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
)

// With an agent image, the Pod copies the gatehouse binary in with an init
// container and runs the sandbox agent in the sandbox image, with the
// sandbox's key, limits and only the SHA-256 of its inspection token in
// its environment (the spec never carries the token), and both ports
// declared.
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
	want := map[string]string{agent.EnvUID: spec.UID, agent.EnvTokenSHA256: agent.TokenSHA256("tok-123"), agent.EnvRoot: Workdir, agent.EnvSSHPort: "2222",
		agent.EnvPort: "2223", agent.EnvTimeLimit: "3600", agent.EnvCPU: "1.5",
		agent.EnvPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample agent@host"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("env %s = %q, want %q", k, env[k], v)
		}
	}
	if raw, _ := json.Marshal(pod); strings.Contains(string(raw), "tok-123") {
		t.Fatalf("the Pod spec holds the inspection token: %s", raw)
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

// Provisioning in agent mode answers the inspection URL and no token:
// the token the caller passed (from the sandbox's row) is what the Pod's
// agent checks, and it reaches neither the endpoint (workflow history)
// nor the Pod spec; a retried provision finds the same Pod.
func TestProvider_AgentProvisionKeepsTheTokenOutOfTheEndpointAndSpec(t *testing.T) {
	cs := fake.NewClientset()
	p := &Provider{Client: cs, Namespace: "sandboxes", AgentImage: "registry.example/gatehouse:1.0.0"}
	ctx := context.Background()
	withToken := spec
	withToken.InspectToken = "row-token-0123456789abcdef0123456789abcdef0123456789abcdef012345"
	created := firstProvisionThenRunSpec(t, p, cs.CoreV1().Pods("sandboxes"), withToken)
	if podEnv(created, agent.EnvTokenSHA256) != agent.TokenSHA256(withToken.InspectToken) || podEnv(created, agent.EnvToken) != "" {
		t.Fatalf("pod env: %+v", created.Spec.Containers[0].Env)
	}
	if raw, _ := json.Marshal(created); strings.Contains(string(raw), withToken.InspectToken) {
		t.Fatalf("the created Pod holds the token: %s", raw)
	}
	ep, err := p.Provision(ctx, withToken)
	if err != nil || ep.InspectToken != "" || ep.InspectURL != "http://10.1.2.3:2223" || ep.Workdir != "/workspace/sbx_AB12/work" {
		t.Fatalf("endpoint %+v %v", ep, err)
	}
}

// A Pod made before tokens were hashed (its spec holds the plaintext)
// still answers its token, which its workflow already recorded.
func TestProvider_PodFromBeforeHashedTokensAnswersItsToken(t *testing.T) {
	cs := fake.NewClientset()
	p := &Provider{Client: cs, Namespace: "sandboxes", AgentImage: "registry.example/gatehouse:1.0.0"}
	old := p.RenderPod(spec, "")
	old.Spec.Containers[0].Env = append(old.Spec.Containers[0].Env, corev1.EnvVar{Name: agent.EnvToken, Value: "old-token"})
	old.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.2.4"}
	if _, err := cs.CoreV1().Pods("sandboxes").Create(context.Background(), old, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ep, err := p.Provision(context.Background(), spec)
	if err != nil || ep.InspectToken != "old-token" || ep.InspectURL != "http://10.1.2.4:2223" {
		t.Fatalf("endpoint %+v %v", ep, err)
	}
}

// Every Pod ends by itself DeadlineGrace after the longest its sandbox
// may live, even with no workflow left to delete it.
func TestRenderPod_ActiveDeadlineFollowsTheLifetimeCap(t *testing.T) {
	p := &Provider{Namespace: "sandboxes"}
	capped := spec
	capped.MaxLifetime = 24 * time.Hour
	for _, tc := range []struct {
		s    sandbox.Spec
		want time.Duration
	}{{spec, time.Hour + DeadlineGrace}, {capped, 24*time.Hour + DeadlineGrace}} {
		pod := p.RenderPod(tc.s, "")
		if d := pod.Spec.ActiveDeadlineSeconds; d == nil || time.Duration(*d)*time.Second != tc.want {
			t.Errorf("activeDeadlineSeconds %v, want %v", d, tc.want)
		}
	}
}
