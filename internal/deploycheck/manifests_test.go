package deploycheck

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// manifests is one rendering of the chart, decoded into API types and
// indexed by kind and name.
type manifests struct {
	deployments     map[string]*appsv1.Deployment
	jobs            map[string]*batchv1.Job
	services        map[string]*corev1.Service
	configMaps      map[string]*corev1.ConfigMap
	secrets         map[string]*corev1.Secret
	serviceAccounts map[string]*corev1.ServiceAccount
	pdbs            map[string]*policyv1.PodDisruptionBudget
	ingresses       map[string]*networkingv1.Ingress
	hpas            map[string]*autoscalingv2.HorizontalPodAutoscaler
	serviceMonitors map[string]*unstructured.Unstructured
	roles           map[string]*rbacv1.Role
	roleBindings    map[string]*rbacv1.RoleBinding
	pvcs            map[string]*corev1.PersistentVolumeClaim
	networkPolicies map[string]*networkingv1.NetworkPolicy
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// decodeManifests splits helm template output into documents and decodes
// each strictly: an unknown or duplicate field, or an unknown kind, fails.
func decodeManifests(out string) (*manifests, error) {
	m := &manifests{
		deployments: map[string]*appsv1.Deployment{}, jobs: map[string]*batchv1.Job{},
		services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{},
		secrets: map[string]*corev1.Secret{}, serviceAccounts: map[string]*corev1.ServiceAccount{},
		pdbs: map[string]*policyv1.PodDisruptionBudget{}, ingresses: map[string]*networkingv1.Ingress{},
		hpas:            map[string]*autoscalingv2.HorizontalPodAutoscaler{},
		serviceMonitors: map[string]*unstructured.Unstructured{},
		roles:           map[string]*rbacv1.Role{}, roleBindings: map[string]*rbacv1.RoleBinding{},
		pvcs: map[string]*corev1.PersistentVolumeClaim{}, networkPolicies: map[string]*networkingv1.NetworkPolicy{},
	}
	for _, doc := range docSeparator.Split(out, -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var head struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			return nil, fmt.Errorf("%s: %w", sourceOf(doc), err)
		}
		if err := m.add(head.APIVersion+"/"+head.Kind, head.Metadata.Name, []byte(doc)); err != nil {
			return nil, fmt.Errorf("%s: %w", sourceOf(doc), err)
		}
	}
	return m, nil
}

// add decodes one document into the type its apiVersion and kind name.
func (m *manifests) add(gvk, name string, doc []byte) error {
	switch gvk {
	case "apps/v1/Deployment":
		return decodeInto(doc, name, m.deployments)
	case "batch/v1/Job":
		return decodeInto(doc, name, m.jobs)
	case "v1/Service":
		return decodeInto(doc, name, m.services)
	case "v1/ConfigMap":
		return decodeInto(doc, name, m.configMaps)
	case "v1/Secret":
		return decodeInto(doc, name, m.secrets)
	case "v1/ServiceAccount":
		return decodeInto(doc, name, m.serviceAccounts)
	case "policy/v1/PodDisruptionBudget":
		return decodeInto(doc, name, m.pdbs)
	case "networking.k8s.io/v1/Ingress":
		return decodeInto(doc, name, m.ingresses)
	case "autoscaling/v2/HorizontalPodAutoscaler":
		return decodeInto(doc, name, m.hpas)
	case "rbac.authorization.k8s.io/v1/Role":
		return decodeInto(doc, name, m.roles)
	case "rbac.authorization.k8s.io/v1/RoleBinding":
		return decodeInto(doc, name, m.roleBindings)
	case "v1/PersistentVolumeClaim":
		return decodeInto(doc, name, m.pvcs)
	case "networking.k8s.io/v1/NetworkPolicy":
		return decodeInto(doc, name, m.networkPolicies)
	case "monitoring.coreos.com/v1/ServiceMonitor":
		u := &unstructured.Unstructured{}
		data, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return err
		}
		if err := u.UnmarshalJSON(data); err != nil {
			return err
		}
		m.serviceMonitors[name] = u
		return nil
	}
	return fmt.Errorf("unexpected kind %s", gvk)
}

func decodeInto[T any](doc []byte, name string, into map[string]*T) error {
	if name == "" {
		return fmt.Errorf("object without metadata.name")
	}
	if _, dup := into[name]; dup {
		return fmt.Errorf("two objects of one kind named %q", name)
	}
	obj := new(T)
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return err
	}
	into[name] = obj
	return nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func sourceOf(doc string) string {
	for _, line := range strings.Split(doc, "\n") {
		if rest, ok := strings.CutPrefix(line, "# Source: "); ok {
			return rest
		}
	}
	return "manifest"
}

// renderings caches helm template output per values set for this test binary.
var renderings = map[string]*manifests{}

// valueSets are the renderings every manifest test checks.
var valueSets = []string{"default", "production"}

func rendered(t *testing.T, set string) *manifests {
	t.Helper()
	if m, ok := renderings[set]; ok {
		return m
	}
	var extra []string
	switch set {
	case "production":
		extra = []string{"--values", productionValues(t)}
	case "mtls":
		extra = []string{"--set", "temporal.tls.enabled=true", "--set", "temporal.tls.existingSecret=temporal-client"}
	case "no-network-policy":
		extra = []string{"--set", "networkPolicy.enabled=false"}
	case "kube-sandboxes":
		extra = []string{"--set", "sandboxes.providers={local,kubernetes}", "--set", "sandboxes.kubernetes.namespace=sandboxes"}
	}
	m, err := decodeManifests(render(t, extra...))
	if err != nil {
		t.Fatalf("%s values: %v", set, err)
	}
	renderings[set] = m
	return m
}

// podTemplates returns every pod template of the rendering, by owner.
func (m *manifests) podTemplates() map[string]*corev1.PodTemplateSpec {
	pods := map[string]*corev1.PodTemplateSpec{}
	for name, d := range m.deployments {
		pods["Deployment/"+name] = &d.Spec.Template
	}
	for name, j := range m.jobs {
		pods["Job/"+name] = &j.Spec.Template
	}
	return pods
}

func TestDecodeManifests_RejectsUnknownFieldsAndKinds(t *testing.T) {
	cases := map[string]string{
		"unknown field": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replica: 1}\n",
		"nested typo":   "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: [{prot: 80}]}\n",
		"duplicate key": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {A: b}\ndata: {C: d}\n",
		"unknown kind":  "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",
		"wrong version": "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: x}\n",
		"no name":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n",
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeManifests("---\n" + doc); err == nil {
				t.Fatalf("decoded without error:\n%s", doc)
			}
		})
	}
}

func TestManifests_KindsPerValueSet(t *testing.T) {
	want := map[string]map[string]int{
		"default":    {"Deployment": 2, "Job": 1, "Service": 1, "ConfigMap": 1, "Secret": 1, "ServiceAccount": 1, "PodDisruptionBudget": 2, "NetworkPolicy": 2},
		"production": {"Deployment": 2, "Job": 1, "Service": 3, "ConfigMap": 1, "Secret": 0, "ServiceAccount": 1, "PodDisruptionBudget": 2, "Ingress": 1, "HorizontalPodAutoscaler": 2, "ServiceMonitor": 2, "NetworkPolicy": 2},
	}
	for _, set := range valueSets {
		m := rendered(t, set)
		got := map[string]int{
			"Deployment": len(m.deployments), "Job": len(m.jobs), "Service": len(m.services),
			"ConfigMap": len(m.configMaps), "Secret": len(m.secrets), "ServiceAccount": len(m.serviceAccounts),
			"PodDisruptionBudget": len(m.pdbs), "Ingress": len(m.ingresses),
			"HorizontalPodAutoscaler": len(m.hpas), "ServiceMonitor": len(m.serviceMonitors), "NetworkPolicy": len(m.networkPolicies),
		}
		for kind, n := range got {
			if n != want[set][kind] {
				t.Errorf("%s values: %d %s objects, want %d", set, n, kind, want[set][kind])
			}
		}
	}
}
