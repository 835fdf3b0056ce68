package deploycheck

import (
	"net"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/kube"
)

// selects reports whether selector s matches a pod labelled l.
func selects(t *testing.T, s *metav1.LabelSelector, l map[string]string) bool {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel.Matches(labels.Set(l))
}

// peerAdmits reports whether peer admits a pod labelled l in namespace ns
// (ipBlock peers admit no pod here: they name addresses, which
// TestManifests_SandboxPodsReachNeitherTheClusterNorMetadata checks).
func peerAdmits(t *testing.T, policyNS string, peer networkingv1.NetworkPolicyPeer, ns string, l map[string]string) bool {
	if peer.IPBlock != nil {
		return false
	}
	if peer.NamespaceSelector == nil && ns != policyNS ||
		peer.NamespaceSelector != nil && !selects(t, peer.NamespaceSelector, map[string]string{"kubernetes.io/metadata.name": ns}) {
		return false
	}
	return peer.PodSelector == nil || selects(t, peer.PodSelector, l)
}

// admits reports whether any ingress rule of np admits the pod on port.
func admits(t *testing.T, np *networkingv1.NetworkPolicy, ns string, l map[string]string, port int32) bool {
	for _, rule := range np.Spec.Ingress {
		portOK := len(rule.Ports) == 0
		for _, p := range rule.Ports {
			portOK = portOK || p.Port != nil && p.Port.IntVal == port
		}
		for _, peer := range rule.From {
			if portOK && peerAdmits(t, np.Namespace, peer, ns, l) {
				return true
			}
		}
	}
	return false
}

// sandboxPodLabels are the labels a real sandbox Pod carries.
func sandboxPodLabels() map[string]string {
	p := &kube.Provider{Namespace: "sandboxes", AgentImage: "registry.example/gatehouse:1"}
	return p.RenderPod(sandbox.Spec{UID: "sbx_0123456789abcdef01234567", Provider: kube.Name}, "t").Labels
}

// TestManifests_OnlyGatehousePodsReachTemporalAndTheDatabase: the default
// chart guards Temporal's frontend and PostgreSQL (before, it rendered no
// NetworkPolicy at all, so any Pod, a sandbox's included, could signal a
// workflow or read the database): the api, worker and migration pods are
// admitted, a sandbox Pod and an unrelated Pod are not.
func TestManifests_OnlyGatehousePodsReachTemporalAndTheDatabase(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		for name, port := range map[string]int32{"gatehouse-temporal-clients": 7233, "gatehouse-database-clients": 5432} {
			np := m.networkPolicies[name]
			if np == nil {
				t.Fatalf("%s: no NetworkPolicy %s (have %v)", set, name, m.networkPolicies)
			}
			if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || len(np.Spec.PodSelector.MatchLabels) == 0 {
				t.Fatalf("%s: %s guards %v for %v", set, name, np.Spec.PodSelector, np.Spec.PolicyTypes)
			}
			for owner, pod := range m.podTemplates() {
				if !admits(t, np, "gatehouse", pod.Labels, port) {
					t.Errorf("%s: %s keeps out %s", set, name, owner)
				}
			}
			for who, l := range map[string]map[string]string{"a sandbox Pod": sandboxPodLabels(), "an unrelated Pod": {"app": "shell"}} {
				for _, ns := range []string{"gatehouse", "sandboxes"} {
					if admits(t, np, ns, l, port) {
						t.Errorf("%s: %s admits %s in namespace %s", set, name, who, ns)
					}
				}
			}
		}
	}
	if m := rendered(t, "no-network-policy"); len(m.networkPolicies) != 0 {
		t.Fatalf("networkPolicy.enabled=false rendered %d NetworkPolicies", len(m.networkPolicies))
	}
}

// TestManifests_SandboxPodsReachNeitherTheClusterNorMetadata: with the
// kubernetes provider, the chart isolates the Pods the provider really
// makes: every egress address rule excludes the cluster's private ranges
// and 169.254.169.254, any other egress is DNS to the cluster DNS only,
// and the agent's inspection port admits the api alone.
func TestManifests_SandboxPodsReachNeitherTheClusterNorMetadata(t *testing.T) {
	m := rendered(t, "kube-sandboxes")
	np := m.networkPolicies["gatehouse-sandboxes"]
	if np == nil || np.Namespace != "sandboxes" {
		t.Fatalf("sandbox NetworkPolicy %+v", np)
	}
	if !selects(t, &np.Spec.PodSelector, sandboxPodLabels()) || len(np.Spec.PolicyTypes) != 2 {
		t.Fatalf("the policy does not select sandbox Pods (%v) for ingress and egress (%v)", np.Spec.PodSelector, np.Spec.PolicyTypes)
	}
	forbidden := []string{"169.254.169.254", "10.0.0.1", "10.96.0.1", "172.20.0.5", "192.168.1.1", "100.64.0.1", "127.0.0.1", "fd00:ec2::254"}
	for _, rule := range np.Spec.Egress {
		for _, peer := range rule.To {
			if peer.IPBlock == nil {
				if len(rule.Ports) == 0 || rule.Ports[0].Port.IntVal != 53 || peer.NamespaceSelector == nil || peer.PodSelector == nil {
					t.Errorf("egress to pods other than DNS on 53: %+v", rule)
				}
				continue
			}
			_, cidr, err := net.ParseCIDR(peer.IPBlock.CIDR)
			if err != nil {
				t.Fatal(err)
			}
			for _, addr := range forbidden {
				ip := net.ParseIP(addr)
				if !cidr.Contains(ip) {
					continue
				}
				excluded := false
				for _, ex := range peer.IPBlock.Except {
					_, exNet, err := net.ParseCIDR(ex)
					excluded = excluded || err == nil && exNet.Contains(ip)
				}
				if !excluded {
					t.Errorf("sandbox Pods may reach %s through %s", addr, peer.IPBlock.CIDR)
				}
			}
		}
	}
	api := m.deployments["gatehouse-api"].Spec.Template.Labels
	worker := m.deployments["gatehouse-worker"].Spec.Template.Labels
	if !admits(t, np, "gatehouse", api, 2223) || admits(t, np, "gatehouse", worker, 2223) || admits(t, np, "sandboxes", sandboxPodLabels(), 2223) {
		t.Errorf("the inspection port admits more or less than the api: %+v", np.Spec.Ingress)
	}
}
