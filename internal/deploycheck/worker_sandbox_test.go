package deploycheck

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The worker serves its own probes and metrics (GATEHOUSE_WORKER_HEALTH_ADDR)
// on a port it declares, and the pod's scrape annotations name that port.
func TestManifests_WorkerProbesAndMetrics(t *testing.T) {
	for _, set := range valueSets {
		w := rendered(t, set).deployments["gatehouse-worker"]
		if w == nil {
			t.Fatalf("%s: no gatehouse-worker Deployment", set)
		}
		c := w.Spec.Template.Spec.Containers[0]
		checkHTTPProbe(t, set+" worker liveness", c, c.LivenessProbe, "/healthz")
		checkHTTPProbe(t, set+" worker readiness", c, c.ReadinessProbe, "/readyz")
		addr := envValue(c, "GATEHOUSE_WORKER_HEALTH_ADDR")
		if addr == "" {
			t.Fatalf("%s: worker has no GATEHOUSE_WORKER_HEALTH_ADDR", set)
		}
		served := slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool {
			return addr == "0.0.0.0:"+strconv.Itoa(int(p.ContainerPort))
		})
		if !served {
			t.Errorf("%s: worker health address %q is not a declared container port %v", set, addr, c.Ports)
		}
	}
	a := rendered(t, "default").deployments["gatehouse-worker"].Spec.Template.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != "8081" {
		t.Errorf("worker pod scrape annotations %v", a)
	}
}

// Only a chart that enables the kubernetes sandbox provider grants pod
// rights, only on pods, only in the sandbox namespace, only to the chart's
// service account; and only the worker mounts a cluster token.
func TestManifests_KubernetesSandboxesRBAC(t *testing.T) {
	for _, set := range valueSets {
		if m := rendered(t, set); len(m.roles)+len(m.roleBindings) != 0 {
			t.Errorf("%s: RBAC objects without the kubernetes provider", set)
		}
	}
	m := rendered(t, "kube-sandboxes")
	role := m.roles["gatehouse-sandboxes"]
	binding := m.roleBindings["gatehouse-sandboxes"]
	if role == nil || binding == nil {
		t.Fatalf("kubernetes provider without its Role and RoleBinding: %v %v", m.roles, m.roleBindings)
	}
	if role.Namespace != "sandboxes" || binding.Namespace != "sandboxes" {
		t.Errorf("RBAC must live in the sandbox namespace: role %q binding %q", role.Namespace, binding.Namespace)
	}
	if len(role.Rules) != 1 || !slices.Equal(role.Rules[0].Resources, []string{"pods"}) || !slices.Equal(role.Rules[0].APIGroups, []string{""}) {
		t.Fatalf("role must cover core pods only: %+v", role.Rules)
	}
	for _, verb := range role.Rules[0].Verbs {
		if !slices.Contains([]string{"create", "get", "list", "delete"}, verb) {
			t.Errorf("role grants %q, more than the provider uses", verb)
		}
	}
	if binding.RoleRef.Kind != "Role" || binding.RoleRef.Name != role.Name {
		t.Errorf("binding refers to %+v", binding.RoleRef)
	}
	if len(binding.Subjects) != 1 || binding.Subjects[0].Kind != "ServiceAccount" || binding.Subjects[0].Namespace != "gatehouse" {
		t.Errorf("binding subjects %+v", binding.Subjects)
	}
	var sa string
	for name := range m.serviceAccounts {
		sa = name
	}
	if binding.Subjects[0].Name != sa {
		t.Errorf("binding names %q, the chart's service account is %q", binding.Subjects[0].Name, sa)
	}
	cm := m.configMaps["gatehouse"]
	if cm == nil || cm.Data["GATEHOUSE_SANDBOX_PROVIDERS"] != "local,kubernetes" || cm.Data["GATEHOUSE_SANDBOX_KUBE_NAMESPACE"] != "sandboxes" {
		t.Fatalf("configmap does not select the provider: %v", cm)
	}
	// Sandbox Pods run the chart's own image as their agent, so runs are
	// recorded; the workers run that same image.
	worker := m.deployments["gatehouse-worker"].Spec.Template.Spec.Containers[0]
	if agent := cm.Data["GATEHOUSE_SANDBOX_KUBE_AGENT_IMAGE"]; agent == "" || agent != worker.Image {
		t.Errorf("sandbox agent image %q, worker image %q", agent, worker.Image)
	}
	mountsToken := func(name string) bool {
		c := m.deployments[name].Spec.Template.Spec.Containers[0]
		return slices.ContainsFunc(c.VolumeMounts, func(v corev1.VolumeMount) bool {
			return v.MountPath == "/var/run/secrets/kubernetes.io/serviceaccount"
		})
	}
	if !mountsToken("gatehouse-worker") || mountsToken("gatehouse-api") {
		t.Errorf("cluster token: worker %v (want true), api %v (want false)", mountsToken("gatehouse-worker"), mountsToken("gatehouse-api"))
	}
}

// envValue is the literal value of the container's variable name.
func envValue(c corev1.Container, name string) string {
	for _, v := range c.Env {
		if v.Name == name {
			return v.Value
		}
	}
	return ""
}
