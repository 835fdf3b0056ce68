// Package deploy builds a deployment's sandbox providers from its
// configuration, in one place for the worker (which provisions) and the
// API (which lists options and inspects runs). It keeps client-go out of
// package sandbox: only this package and package kube import it.
package deploy

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/kube"
)

// Clients replaces how providers reach outside systems; tests pass fakes.
type Clients struct {
	// Kube, when set, is the kubernetes client instead of one built from
	// GATEHOUSE_SANDBOX_KUBECONFIG or the in-cluster service account.
	Kube kubernetes.Interface
}

// builders make one provider per configured name.
var builders = map[string]func(config.Config, Clients) (sandbox.Provider, error){
	sandbox.LocalName: local,
	kube.Name:         kubernetesProvider,
}

// Build returns the providers cfg names, in its order. A provider that
// cannot be built is kept as a sandbox.Unavailable carrying the reason (a
// kubernetes provider without cluster credentials stays listable and
// answers the reason on every cluster call, since the api needs none), and
// the reasons are returned joined, so callers can log them at startup and
// health checks keep reporting them. An unknown name is an error alone
// (config.FromLookup refuses it first).
func Build(cfg config.Config, cl Clients) (sandbox.Providers, error) {
	names := cfg.Sandbox.Providers
	if len(names) == 0 {
		names = []string{sandbox.LocalName}
	}
	var (
		ps   []sandbox.Provider
		errs []error
	)
	for _, name := range names {
		build, ok := builders[name]
		if !ok {
			return sandbox.Providers{}, fmt.Errorf("%w %q", sandbox.ErrUnknownProvider, name)
		}
		p, err := build(cfg, cl)
		if err != nil {
			err = fmt.Errorf("sandbox provider %s: %w", name, err)
			errs = append(errs, err)
		}
		if p == nil {
			p = sandbox.Unavailable{ProviderName: name, Err: err}
		}
		ps = append(ps, p)
	}
	return sandbox.NewProviders(ps...), errors.Join(errs...)
}

type built struct {
	ps  sandbox.Providers
	err error
}

var (
	sharedMu sync.Mutex
	shared   = map[string]built{}
)

// Shared is Build with real clients, once per distinct sandbox
// configuration in this process: the worker and the API of one process
// share providers (and so a local sandbox's live SSH server), and a
// kubernetes client is made once.
func Shared(cfg config.Config) (sandbox.Providers, error) {
	key := fmt.Sprintf("%s\x00%+v", cfg.DataDir, cfg.Sandbox)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if b, ok := shared[key]; ok {
		return b.ps, b.err
	}
	ps, err := Build(cfg, Clients{})
	shared[key] = built{ps, err}
	return ps, err
}

// local is the process's local provider under DataDir/sandboxes, dropping
// root to GATEHOUSE_SANDBOX_RUN_AS for commands, which run confined unless
// the owner of a single-user machine opted out with
// GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND. A host that cannot confine
// them keeps the provider, which refuses sandboxes with ErrUnconfined.
func local(cfg config.Config, _ Clients) (sandbox.Provider, error) {
	l := sandbox.LocalAt(filepath.Join(cfg.DataDir, "sandboxes"))
	if err := l.RunAs(cfg.Sandbox.RunAs); err != nil {
		return nil, err
	}
	l.SetUnconfined(cfg.Sandbox.UnisolatedIUnderstand)
	return l, nil
}

// kubernetesProvider creates sandbox Pods in the configured namespace.
// Without a client it is still returned, with the reason as ClientErr.
func kubernetesProvider(cfg config.Config, cl Clients) (sandbox.Provider, error) {
	p := &kube.Provider{Client: cl.Kube, Namespace: cfg.Sandbox.KubeNamespace, Image: cfg.Sandbox.KubeImage,
		AgentImage: cfg.Sandbox.KubeAgentImage, Types: kube.DefaultTypes()}
	if p.Client != nil {
		return p, nil
	}
	rc, err := restConfig(cfg.Sandbox.Kubeconfig)
	if err == nil {
		p.Client, err = kubernetes.NewForConfig(rc)
	}
	if err != nil {
		p.Client, p.ClientErr = nil, err
	}
	return p, err
}

// restConfig reads kubeconfig, or the in-cluster service account when it
// is empty.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		rc, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("in-cluster config (set GATEHOUSE_SANDBOX_KUBECONFIG outside a cluster): %w", err)
		}
		return rc, nil
	}
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	return rc, nil
}
