package config

import (
	"slices"
	"strings"
	"testing"
)

func TestFromLookup_SandboxDefaultsAreLocalAndAPinnedImage(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Sandbox
	if !slices.Equal(s.Providers, []string{"local"}) || s.RunAs != "nobody" || s.KubeNamespace != "default" || s.Kubeconfig != "" {
		t.Fatalf("sandbox defaults %+v", s)
	}
	if s.KubeImage != DefaultSandboxKubeImage || strings.HasSuffix(s.KubeImage, ":latest") || !strings.Contains(s.KubeImage, ":") {
		t.Fatalf("kube image %q is not pinned", s.KubeImage)
	}
}

func TestFromLookup_SandboxProvidersListIsTrimmedAndDeduplicated(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(map[string]string{"GATEHOUSE_SANDBOX_PROVIDERS": " kubernetes, local ,kubernetes,", "GATEHOUSE_SANDBOX_KUBECONFIG": "/etc/kube/config",
		"GATEHOUSE_SANDBOX_KUBE_NAMESPACE": "sbx", "GATEHOUSE_SANDBOX_KUBE_IMAGE": "registry.example/sshd@sha256:0123", "GATEHOUSE_SANDBOX_RUN_AS": "sandboxer"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Sandbox{Providers: []string{"kubernetes", "local"}, RunAs: "sandboxer", KubeNamespace: "sbx", KubeImage: "registry.example/sshd@sha256:0123", Kubeconfig: "/etc/kube/config"}
	if !slices.Equal(c.Sandbox.Providers, want.Providers) || c.Sandbox.RunAs != want.RunAs || c.Sandbox.KubeNamespace != want.KubeNamespace ||
		c.Sandbox.KubeImage != want.KubeImage || c.Sandbox.Kubeconfig != want.Kubeconfig {
		t.Fatalf("got %+v, want %+v", c.Sandbox, want)
	}
}

func TestFromLookup_UnknownSandboxProviderIsAStartupError(t *testing.T) {
	t.Parallel()
	for _, list := range []string{"local,docker", "kube", " , "} {
		_, err := FromLookup(lookup(map[string]string{"GATEHOUSE_SANDBOX_PROVIDERS": list}))
		if err == nil || !strings.Contains(err.Error(), "GATEHOUSE_SANDBOX_PROVIDERS") || !strings.Contains(err.Error(), "kubernetes") {
			t.Errorf("GATEHOUSE_SANDBOX_PROVIDERS=%q: want an error naming the variable and the known providers, got %v", list, err)
		}
	}
}
