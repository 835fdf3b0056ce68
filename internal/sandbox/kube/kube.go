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
// connect (a VPN, or a LoadBalancer Service in front of each Pod). Runs are not
// recorded by this provider: sandbox.runs and sandbox.terminal answer
// unsupported for it.
package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/gatehouse/gatehouse/internal/sandbox"
)

// Name is the provider's name.
const Name = "kubernetes"

// Pod layout.
const (
	// SSHPort is the port the Pod's SSH server listens on.
	SSHPort = 2222
	// Workdir is the sandbox working directory inside the Pod.
	Workdir = "/workspace"
	// DefaultImage serves SSH for USER_NAME with PUBLIC_KEY on port 2222.
	// It is a static build tag (never a moving one such as latest), so a
	// sandbox Pod runs the image that was reviewed; production deployments
	// may pin a digest instead (GATEHOUSE_SANDBOX_KUBE_IMAGE).
	DefaultImage = "lscr.io/linuxserver/openssh-server:9.3_p2-r0-ls127"
	// Region is the region kubernetes instance types are offered in.
	Region = "cluster"
	// LabelUID carries the sandbox uid on every Pod, for sweeping orphans.
	LabelUID = "gatehouse.dev/sandbox-uid"
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
	Types     []sandbox.InstanceType
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

// RenderPod is the Pod a sandbox runs as.
func (p *Provider) RenderPod(spec sandbox.Spec) *corev1.Pod {
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
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: PodName(spec.UID), Namespace: p.Namespace,
			Labels: map[string]string{LabelUID: strings.ToLower(spec.UID), "app.kubernetes.io/managed-by": "gatehouse"}},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
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
}

// Provision implements sandbox.Provider: it creates the Pod once and
// answers its endpoint when it runs, ErrNotReady before.
func (p *Provider) Provision(ctx context.Context, spec sandbox.Spec) (sandbox.Endpoint, error) {
	pod := p.RenderPod(spec)
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
	return sandbox.Endpoint{Host: got.Status.PodIP, Port: SSHPort, User: sandbox.LocalUser, Workdir: Workdir}, nil
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
