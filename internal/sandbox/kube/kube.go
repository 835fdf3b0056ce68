// Package kube is the kubernetes sandbox provider: one Pod per sandbox,
// running an SSH server that accepts only the sandbox's public key, with
// the sandbox's CPU, memory and GPU as resource limits and a scratch
// working directory. It lives apart from package sandbox so only a
// deployment that wires it in pays for client-go.
//
// Real cluster use: package sandbox/deploy builds the client from the
// worker's in-cluster config (rest.InClusterConfig) or a kubeconfig
// (GATEHOUSE_SANDBOX_KUBECONFIG); the worker's service account needs
// create/get/delete/list on pods in Namespace (helm/gatehouse grants that
// and projects a token into the worker alone when sandboxes.providers
// includes kubernetes). Pod IPs must be reachable from where agents
// connect (a VPN, or a LoadBalancer Service in front of each Pod).
//
// With AgentImage set (GATEHOUSE_SANDBOX_KUBE_AGENT_IMAGE, the Gatehouse
// image), the Pod runs the sandbox agent instead of the image's own SSH
// server: an init container copies the gatehouse binary into the Pod, and
// `gatehouse sandbox-agent serve` serves SSH (recording every command as a
// run, as local sandboxes do) and the inspection port that sandbox.runs,
// sandbox.terminal, sandbox.pull_outputs and the release checklist read,
// with a per-sandbox token. The token lives only in the sandbox's
// database row (Spec.InspectToken); the Pod spec carries its SHA-256, so
// neither the spec, workflow history nor a query gives it away. The API
// must reach Pod IPs on InspectPort.
// The agent and its commands run as AgentUser (non-root, no privilege
// escalation, no capabilities), so the run records are protected by the
// Pod boundary, not from the sandbox's own commands.
// Without it, runs are not recorded: those tools answer unsupported.
package kube

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"path"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
)

// Name is the provider's name.
const Name = "kubernetes"

// Pod layout.
const (
	// SSHPort is the port the Pod's SSH server listens on.
	SSHPort = 2222
	// InspectPort is the sandbox agent's inspection port.
	InspectPort = 2223
	// AgentUser is the uid (and gid) a Pod running the sandbox agent runs
	// as: the agent and every command, never root.
	AgentUser = 1000
	// agentBin is where the init container puts the gatehouse binary.
	agentBin = "/opt/gatehouse"
	// Workdir is the sandbox working directory inside the Pod.
	Workdir = "/workspace"
	// DefaultImage serves SSH for USER_NAME with PUBLIC_KEY on port 2222.
	// It is a static build tag (never a moving one such as latest), so a
	// sandbox Pod runs the image that was reviewed; production deployments
	// may pin a digest instead (GATEHOUSE_SANDBOX_KUBE_IMAGE).
	DefaultImage = "lscr.io/linuxserver/openssh-server:9.3_p2-r0-ls127"
	// Region is the region kubernetes instance types are offered in.
	Region = "cluster"
	// DeadlineGrace is how long past a sandbox's longest life its Pod may
	// run (activeDeadlineSeconds): time for provisioning retries and a
	// patient teardown.
	DeadlineGrace = 15 * time.Minute
	// LabelUID carries the sandbox uid, lowercased, on every Pod, for
	// sweeping orphans; AnnotationUID carries it exactly.
	LabelUID      = "gatehouse.dev/sandbox-uid"
	AnnotationUID = "gatehouse.dev/sandbox-uid"
	// gpuResource is the extended resource a GPU is requested as.
	gpuResource = corev1.ResourceName("nvidia.com/gpu")
)

var _ sandbox.Provider = (*Provider)(nil)

// ErrNotReady means the Pod exists but has no IP yet; the provisioning
// activity retries.
var ErrNotReady = errors.New("kube: sandbox pod is not running yet")

// Provider creates sandbox Pods through a Kubernetes client.
type Provider struct {
	Client    kubernetes.Interface
	Namespace string
	Image     string
	// AgentImage is the Gatehouse image whose binary runs as the sandbox
	// agent ("": the image's own SSH server, runs not recorded).
	AgentImage string
	Types      []sandbox.InstanceType
	// ClientErr, when set, is why there is no Client in this process (the
	// api has no cluster credentials; only the worker needs them): Options
	// still answers, every call to the cluster answers ClientErr.
	ClientErr error
}

// pods is the Pod client of Namespace, or ClientErr.
func (p *Provider) pods() (typedcorev1.PodInterface, error) {
	if p.Client == nil {
		if p.ClientErr != nil {
			return nil, p.ClientErr
		}
		return nil, errors.New("kube: no kubernetes client")
	}
	return p.Client.CoreV1().Pods(p.Namespace), nil
}

// DefaultTypes are the machine shapes offered unless a deployment sets
// Types: limits a Pod is scheduled with.
func DefaultTypes() []sandbox.InstanceType {
	return []sandbox.InstanceType{
		{Provider: Name, Name: "kube-small", CPU: 1, MemoryMB: 2048, Region: Region},
		{Provider: Name, Name: "kube-medium", CPU: 4, MemoryMB: 16384, Region: Region},
		{Provider: Name, Name: "kube-gpu-small", CPU: 8, MemoryMB: 32768, GPU: 1, GPUKind: "nvidia", Region: Region},
	}
}

// Name implements sandbox.Provider.
func (p *Provider) Name() string { return Name }

// Options implements sandbox.Provider.
func (p *Provider) Options() []sandbox.InstanceType { return p.Types }

// Health implements sandbox.Provider: the namespace's Pods can be listed.
func (p *Provider) Health(ctx context.Context) error {
	pods, err := p.pods()
	if err != nil {
		return err
	}
	_, err = pods.List(ctx, metav1.ListOptions{Limit: 1, LabelSelector: LabelUID})
	return err
}

// PodName is the Pod of sandbox uid (a DNS label).
func PodName(uid string) string {
	return "sbx-" + strings.ToLower(strings.ReplaceAll(uid, "_", "-"))
}

// RenderPod is the Pod a sandbox runs as; token is the agent's inspection
// token (unused without AgentImage), of which the Pod carries only the
// SHA-256. activeDeadlineSeconds ends the Pod by itself DeadlineGrace
// after the longest the sandbox may live (spec.MaxLifetime, else its time
// limit), even when no workflow is left to tear it down.
func (p *Provider) RenderPod(spec sandbox.Spec, token string) *corev1.Pod {
	image := p.Image
	if image == "" {
		image = DefaultImage
	}
	limits := corev1.ResourceList{}
	if spec.CPU > 0 {
		limits[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(spec.CPU*1000), resource.DecimalSI)
	}
	if spec.MemoryMB > 0 {
		limits[corev1.ResourceMemory] = *resource.NewQuantity(int64(spec.MemoryMB)<<20, resource.BinarySI)
	}
	if spec.GPU > 0 {
		limits[gpuResource] = *resource.NewQuantity(int64(spec.GPU), resource.DecimalSI)
	}
	no := false
	scratch := resource.MustParse("10Gi")
	deadline := int64((max(spec.MaxLifetime, spec.TimeLimit, time.Minute) + DeadlineGrace).Seconds())
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: PodName(spec.UID), Namespace: p.Namespace,
			Labels:      map[string]string{LabelUID: strings.ToLower(spec.UID), "app.kubernetes.io/managed-by": "gatehouse"},
			Annotations: map[string]string{AnnotationUID: spec.UID}},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:        &deadline,
			AutomountServiceAccountToken: &no,
			EnableServiceLinks:           &no,
			Containers: []corev1.Container{{
				Name:  "sandbox",
				Image: image,
				Env: []corev1.EnvVar{{Name: "PUBLIC_KEY", Value: strings.TrimSpace(spec.PublicKey)}, {Name: "USER_NAME", Value: sandbox.LocalUser},
					{Name: "PASSWORD_ACCESS", Value: "false"}, {Name: "SUDO_ACCESS", Value: "false"}},
				Ports:        []corev1.ContainerPort{{Name: "ssh", ContainerPort: SSHPort}},
				WorkingDir:   Workdir,
				Resources:    corev1.ResourceRequirements{Limits: limits, Requests: limits},
				VolumeMounts: []corev1.VolumeMount{{Name: "workspace", MountPath: Workdir}},
			}},
			Volumes: []corev1.Volume{{Name: "workspace", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &scratch}}}},
		},
	}
	if p.AgentImage != "" {
		p.withAgent(pod, spec, token)
	}
	return pod
}

// withAgent makes pod run the sandbox agent: an init container copies the
// gatehouse binary from AgentImage into a shared volume, and the sandbox
// container runs it as its command, in the sandbox image's environment.
func (p *Provider) withAgent(pod *corev1.Pod, spec sandbox.Spec, token string) {
	bin := corev1.VolumeMount{Name: "gatehouse-bin", MountPath: agentBin}
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "gatehouse-bin", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	pod.Spec.InitContainers = []corev1.Container{{Name: "gatehouse-agent", Image: p.AgentImage,
		Command: []string{"/gatehouse", "sandbox-agent", "install", agentBin + "/gatehouse"}, VolumeMounts: []corev1.VolumeMount{bin}}}
	c := &pod.Spec.Containers[0]
	c.Command = []string{agentBin + "/gatehouse", "sandbox-agent", "serve"}
	c.Env = []corev1.EnvVar{
		{Name: agent.EnvUID, Value: spec.UID},
		{Name: agent.EnvPublicKey, Value: strings.TrimSpace(spec.PublicKey)},
		{Name: agent.EnvTokenSHA256, Value: agent.TokenSHA256(token)},
		{Name: agent.EnvRoot, Value: Workdir},
		{Name: agent.EnvSSHPort, Value: fmt.Sprint(SSHPort)},
		{Name: agent.EnvPort, Value: fmt.Sprint(InspectPort)},
		{Name: agent.EnvTimeLimit, Value: fmt.Sprint(int(spec.TimeLimit.Seconds()))},
		{Name: agent.EnvCPU, Value: fmt.Sprint(spec.CPU)},
	}
	// The Pod's cgroup limits memory (Resources); commands get no
	// address-space cap on top, which would break CUDA and JVMs.
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "inspect", ContainerPort: InspectPort})
	c.VolumeMounts = append(c.VolumeMounts, bin)
	// The agent replaces the image's entrypoint, so nothing in the Pod
	// needs root: the agent and every command run as AgentUser, with no
	// privilege escalation and no capabilities; the workspace belongs to
	// its group.
	uid, yes, no := int64(AgentUser), true, false
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: &yes, RunAsUser: &uid, RunAsGroup: &uid, FSGroup: &uid}
	locked := &corev1.SecurityContext{AllowPrivilegeEscalation: &no, Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	c.SecurityContext = locked
	pod.Spec.InitContainers[0].SecurityContext = locked
}

// agentWorkdir is the working directory the agent gives sandbox uid.
func agentWorkdir(uid string) string { return path.Join(Workdir, uid, "work") }

// podEnv is the value of the sandbox container's variable name ("" when
// unset).
func podEnv(pod *corev1.Pod, name string) string {
	for _, c := range pod.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == name {
				return e.Value
			}
		}
	}
	return ""
}

// NewToken is a fresh inspection token.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Provision implements sandbox.Provider: it creates the Pod once and
// answers its endpoint when it runs, ErrNotReady before. The endpoint
// names the inspection URL but not the token (the caller holds it in
// spec.InspectToken); only a Pod made before tokens were hashed answers
// its plaintext token, which its workflow already recorded.
func (p *Provider) Provision(ctx context.Context, spec sandbox.Spec) (sandbox.Endpoint, error) {
	token := spec.InspectToken
	if token == "" {
		// No row token (a sandbox from before them): the Pod, if this
		// call creates it, checks a token nobody holds.
		var err error
		if token, err = NewToken(); err != nil {
			return sandbox.Endpoint{}, err
		}
	}
	pod := p.RenderPod(spec, token)
	pods, err := p.pods()
	if err != nil {
		return sandbox.Endpoint{}, err
	}
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return sandbox.Endpoint{}, fmt.Errorf("kube: create pod: %w", err)
	}
	got, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		return sandbox.Endpoint{}, fmt.Errorf("kube: get pod: %w", err)
	}
	if got.Status.Phase != corev1.PodRunning || got.Status.PodIP == "" {
		return sandbox.Endpoint{}, fmt.Errorf("%w (phase %q)", ErrNotReady, got.Status.Phase)
	}
	ep := sandbox.Endpoint{Host: got.Status.PodIP, Port: SSHPort, User: sandbox.LocalUser, Workdir: Workdir}
	if podEnv(got, agent.EnvTokenSHA256) != "" || podEnv(got, agent.EnvToken) != "" {
		ep.Workdir, ep.InspectToken = agentWorkdir(spec.UID), podEnv(got, agent.EnvToken)
		ep.InspectURL = "http://" + net.JoinHostPort(got.Status.PodIP, fmt.Sprint(InspectPort))
	}
	return ep, nil
}

// Destroy implements sandbox.Provider; a Pod already gone is destroyed.
func (p *Provider) Destroy(ctx context.Context, uid string) error {
	pods, err := p.pods()
	if err != nil {
		return err
	}
	err = pods.Delete(ctx, PodName(uid), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("kube: delete pod: %w", err)
	}
	return nil
}

var _ sandbox.Holder = (*Provider)(nil)

// Holding implements sandbox.Holder: the sandboxes whose Pods exist in
// Namespace, by their uid annotation (the label, lowercased, for Pods
// without one).
func (p *Provider) Holding(ctx context.Context) ([]string, error) {
	pods, err := p.pods()
	if err != nil {
		return nil, err
	}
	var out []string
	opts := metav1.ListOptions{LabelSelector: LabelUID, Limit: 500}
	for {
		list, err := pods.List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("kube: list sandbox pods: %w", err)
		}
		for _, pod := range list.Items {
			uid := pod.Annotations[AnnotationUID]
			if uid == "" {
				uid = pod.Labels[LabelUID]
			}
			out = append(out, uid)
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			return out, nil
		}
	}
}
