package deploy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/kube"
)

func configWith(t *testing.T, env map[string]string) config.Config {
	t.Helper()
	env["GATEHOUSE_DATA_DIR"] = t.TempDir()
	cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestBuild_EveryConfigurableNameHasABuilderAndTheImagesAgree(t *testing.T) {
	var names []string
	for n := range builders {
		names = append(names, n)
	}
	sort.Strings(names)
	known := slices.Clone(config.SandboxProviderNames)
	sort.Strings(known)
	if !slices.Equal(names, known) {
		t.Fatalf("builders %v, config accepts %v", names, known)
	}
	if config.DefaultSandboxKubeImage != kube.DefaultImage || strings.HasSuffix(kube.DefaultImage, ":latest") {
		t.Fatalf("config default image %q, kube default %q", config.DefaultSandboxKubeImage, kube.DefaultImage)
	}
}

func TestBuild_DefaultIsLocalOnly(t *testing.T) {
	cfg := configWith(t, map[string]string{})
	ps, err := Build(cfg, Clients{})
	if err != nil {
		t.Fatal(err)
	}
	if ps.Default() != sandbox.LocalName || len(ps.All()) != 1 {
		t.Fatalf("providers %v default %q", ps.All(), ps.Default())
	}
	if _, err := ps.Get(kube.Name); !errors.Is(err, sandbox.ErrUnknownProvider) {
		t.Fatalf("kubernetes offered without being configured: %v", err)
	}
	cfg.Sandbox.Providers = []string{"local", "docker"}
	if _, err := Build(cfg, Clients{}); !errors.Is(err, sandbox.ErrUnknownProvider) {
		t.Fatalf("unknown name: %v", err)
	}
}

func TestBuild_KubernetesFromConfigWithAFakeClientProvisionsInTheNamespace(t *testing.T) {
	cs := fake.NewClientset()
	cfg := configWith(t, map[string]string{"GATEHOUSE_SANDBOX_PROVIDERS": "kubernetes,local", "GATEHOUSE_SANDBOX_KUBE_NAMESPACE": "research-sbx",
		"GATEHOUSE_SANDBOX_KUBE_IMAGE": "registry.example/sshd@sha256:abc"})
	ps, err := Build(cfg, Clients{Kube: cs})
	if err != nil {
		t.Fatal(err)
	}
	if ps.Default() != kube.Name || len(ps.All()) != 2 {
		t.Fatalf("default %q of %d", ps.Default(), len(ps.All()))
	}
	p, err := ps.Get("")
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := sandbox.Lookup(p, "", true)
	if err != nil || gpu.GPU == 0 || gpu.Provider != kube.Name {
		t.Fatalf("gpu type %+v %v", gpu, err)
	}
	ctx := context.Background()
	_, err = p.Provision(ctx, sandbox.Spec{UID: "sbx_k1", Provider: kube.Name, InstanceType: gpu.Name, CPU: gpu.CPU, MemoryMB: gpu.MemoryMB, GPU: 1,
		PublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample a@b"})
	if !errors.Is(err, kube.ErrNotReady) {
		t.Fatalf("provision: %v", err)
	}
	pod, err := cs.CoreV1().Pods("research-sbx").Get(ctx, kube.PodName("sbx_k1"), metav1.GetOptions{})
	if err != nil || pod.Spec.Containers[0].Image != "registry.example/sshd@sha256:abc" {
		t.Fatalf("pod %v %v", pod, err)
	}
	if err := p.Health(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestBuild_KubernetesWithoutCredentialsListsTypesButRefusesClusterCalls(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for name, kubeconfig := range map[string]string{"in-cluster": "", "missing file": filepath.Join(t.TempDir(), "nope")} {
		t.Run(name, func(t *testing.T) {
			cfg := configWith(t, map[string]string{"GATEHOUSE_SANDBOX_PROVIDERS": "local,kubernetes", "GATEHOUSE_SANDBOX_KUBECONFIG": kubeconfig})
			ps, err := Build(cfg, Clients{})
			if err == nil || !strings.Contains(err.Error(), "sandbox provider kubernetes") {
				t.Fatalf("want the kubernetes failure reported, got %v", err)
			}
			k, _ := ps.Get(kube.Name)
			if k.Health(context.Background()) == nil || len(k.Options()) == 0 {
				t.Fatalf("kubernetes provider %#v", k)
			}
			if _, err := k.Provision(context.Background(), sandbox.Spec{UID: "sbx_x", PublicKey: "ssh-ed25519 AAAA"}); err == nil || !strings.Contains(err.Error(), "config") {
				t.Fatalf("provision without credentials: %v", err)
			}
			if err := k.Destroy(context.Background(), "sbx_x"); err == nil {
				t.Fatal("destroy without credentials succeeded")
			}
			if ps.Default() != sandbox.LocalName {
				t.Fatalf("default %q", ps.Default())
			}
		})
	}
}

func TestBuild_KubeconfigFileBuildsAClient(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "config")
	const file = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: t0k}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(kc, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := configWith(t, map[string]string{"GATEHOUSE_SANDBOX_PROVIDERS": "kubernetes", "GATEHOUSE_SANDBOX_KUBECONFIG": kc})
	ps, err := Build(cfg, Clients{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := ps.Get(kube.Name)
	kp, ok := p.(*kube.Provider)
	if !ok || kp.Namespace != "default" || kp.Image != kube.DefaultImage || kp.Client == nil {
		t.Fatalf("provider %#v", p)
	}
}

func TestShared_OnePerConfiguration(t *testing.T) {
	cfg := configWith(t, map[string]string{})
	a, _ := Shared(cfg)
	b, _ := Shared(cfg)
	pa, _ := a.Get("")
	pb, _ := b.Get("")
	if pa != pb {
		t.Fatal("two provider sets for one configuration")
	}
}

func TestBuild_UnknownRunAsUserLeavesLocalUnavailableWhenRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("run-as applies only to a root worker")
	}
	cfg := configWith(t, map[string]string{"GATEHOUSE_SANDBOX_RUN_AS": "no-such-user-here"})
	ps, err := Build(cfg, Clients{})
	if err == nil || !strings.Contains(err.Error(), "no-such-user-here") {
		t.Fatalf("want the run-as failure reported, got %v", err)
	}
	p, _ := ps.Get("")
	if _, ok := p.(sandbox.Unavailable); !ok || len(p.Options()) != 0 || p.Health(context.Background()) == nil {
		t.Fatalf("local provider %#v", p)
	}
}
