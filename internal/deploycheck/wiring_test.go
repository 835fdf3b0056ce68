package deploycheck

import (
	"maps"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// Every GATEHOUSE_* variable the chart sets is one the code reads.
func TestManifests_EnvironmentMatchesConfig(t *testing.T) {
	for _, set := range append(valueSets, "mtls", "kube-sandboxes") {
		m := rendered(t, set)
		var names []string
		for _, cm := range m.configMaps {
			names = slices.AppendSeq(names, maps.Keys(cm.Data))
		}
		for _, pod := range m.podTemplates() {
			for _, c := range pod.Spec.Containers {
				for _, v := range c.Env {
					names = append(names, v.Name)
				}
			}
		}
		for _, unknown := range unknownGatehouseNames(names) {
			t.Errorf("%s values: the chart sets %s, which the code does not read (not in config.Vars)", set, unknown)
		}
	}
}

func TestManifests_TemporalSettings(t *testing.T) {
	want := map[string]map[string]string{
		"default":    {"GATEHOUSE_TEMPORAL_ADDRESS": "temporal-frontend:7233", "GATEHOUSE_TEMPORAL_NAMESPACE": "default"},
		"production": {"GATEHOUSE_TEMPORAL_ADDRESS": "us-east-1.aws.api.temporal.io:7233", "GATEHOUSE_TEMPORAL_NAMESPACE": "gatehouse-prod.a1b2c"},
	}
	for _, set := range valueSets {
		cm := rendered(t, set).configMaps["gatehouse"]
		if cm == nil {
			t.Fatalf("%s: no gatehouse ConfigMap", set)
		}
		for key, value := range want[set] {
			if cm.Data[key] != value {
				t.Errorf("%s: ConfigMap %s = %q, want %q", set, key, cm.Data[key], value)
			}
		}
	}
}

// With mTLS on, the client files the config names are mounted from the Secret.
func TestManifests_TemporalMTLSMount(t *testing.T) {
	m := rendered(t, "mtls")
	cm := m.configMaps["gatehouse"]
	for _, name := range []string{"gatehouse-api", "gatehouse-worker"} {
		pod := m.deployments[name].Spec.Template.Spec
		vol := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool {
			return v.Secret != nil && v.Secret.SecretName == "temporal-client"
		})
		if vol < 0 {
			t.Fatalf("%s: Secret temporal-client is not a volume", name)
		}
		mounted := slices.ContainsFunc(pod.Containers[0].VolumeMounts, func(vm corev1.VolumeMount) bool {
			return vm.Name == pod.Volumes[vol].Name && vm.ReadOnly &&
				cm.Data["GATEHOUSE_TEMPORAL_TLS_CERT"] == vm.MountPath+"/tls.crt" &&
				cm.Data["GATEHOUSE_TEMPORAL_TLS_KEY"] == vm.MountPath+"/tls.key"
		})
		if !mounted {
			t.Errorf("%s: TLS files in the ConfigMap do not match a read-only mount of temporal-client", name)
		}
	}
}

// Services, budgets, autoscalers and the ServiceMonitor select what they mean to.
func TestManifests_SelectorsMatch(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		podLabels := func(deployment string) labels.Set {
			d := m.deployments[deployment]
			if d == nil {
				t.Fatalf("%s: no Deployment %s", set, deployment)
			}
			return d.Spec.Template.Labels
		}
		for name, d := range m.deployments {
			sel := labels.SelectorFromSet(d.Spec.Selector.MatchLabels)
			if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				t.Errorf("%s: Deployment %s selector does not match its pods", set, name)
			}
		}
		svc := m.services["gatehouse-api"]
		if svc == nil || !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels("gatehouse-api")) ||
			labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels("gatehouse-worker")) {
			t.Errorf("%s: Service gatehouse-api does not select exactly the api pods", set)
		}
		for name, pdb := range m.pdbs {
			if !labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels).Matches(podLabels(name)) {
				t.Errorf("%s: PodDisruptionBudget %s does not select Deployment %s", set, name, name)
			}
		}
		for name, hpa := range m.hpas {
			d := m.deployments[hpa.Spec.ScaleTargetRef.Name]
			if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || d == nil {
				t.Errorf("%s: HPA %s targets nothing rendered", set, name)
			} else if d.Spec.Replicas != nil {
				t.Errorf("%s: Deployment %s sets replicas although HPA %s scales it", set, d.Name, name)
			}
		}
		checkIngress(t, set, m)
		checkServiceMonitors(t, set, m)
	}
}

func checkIngress(t *testing.T, set string, m *manifests) {
	t.Helper()
	for name, ing := range m.ingresses {
		for _, rule := range ing.Spec.Rules {
			for _, p := range rule.HTTP.Paths {
				svc := m.services[p.Backend.Service.Name]
				if svc == nil || !hasServicePort(svc, p.Backend.Service.Port.Name, p.Backend.Service.Port.Number) {
					t.Errorf("%s: Ingress %s routes to a missing Service port", set, name)
				}
			}
		}
	}
}

func checkServiceMonitors(t *testing.T, set string, m *manifests) {
	t.Helper()
	for name, sm := range m.serviceMonitors {
		match, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		var svc *corev1.Service
		for _, s := range m.services {
			if len(match) > 0 && labels.SelectorFromSet(match).Matches(labels.Set(s.Labels)) {
				svc = s
			}
		}
		if svc == nil {
			t.Errorf("%s: ServiceMonitor %s selects no Service", set, name)
			continue
		}
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		if len(endpoints) == 0 {
			t.Errorf("%s: ServiceMonitor %s has no endpoints", set, name)
		}
		for _, e := range endpoints {
			ep, _ := e.(map[string]any)
			port, _ := ep["port"].(string)
			if ep["path"] != "/metrics" || !hasServicePort(svc, port, 0) {
				t.Errorf("%s: ServiceMonitor %s endpoint %v is not /metrics on a Service port", set, name, ep)
			}
		}
	}
}

func hasServicePort(svc *corev1.Service, name string, number int32) bool {
	return slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool {
		return name != "" && p.Name == name || number != 0 && p.Port == number
	})
}

// Default values scrape through annotations; they name the api's real port.
func TestManifests_PrometheusAnnotations(t *testing.T) {
	pod := rendered(t, "default").deployments["gatehouse-api"].Spec.Template
	a := pod.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" {
		t.Fatalf("api pod scrape annotations %v", a)
	}
	port := slices.IndexFunc(pod.Spec.Containers[0].Ports, func(p corev1.ContainerPort) bool {
		return a["prometheus.io/port"] == strconv.Itoa(int(p.ContainerPort))
	})
	if port < 0 {
		t.Errorf("prometheus.io/port %q is not a container port", a["prometheus.io/port"])
	}
}
