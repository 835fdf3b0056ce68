package deploycheck

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// /metrics stays inside the cluster: the api serves it on a port of its
// own (GATEHOUSE_METRICS_ADDR names that container port), the Service the
// Ingress routes has no port leading there, and the pods' scrape
// annotations name it.
func TestManifests_APIMetricsPortIsNotRoutedByTheIngress(t *testing.T) {
	m := rendered(t, "production")
	if len(m.ingresses) == 0 {
		t.Fatal("the production values render no Ingress")
	}
	api := m.deployments["gatehouse-api"]
	if api == nil {
		t.Fatal("no api Deployment")
	}
	c := api.Spec.Template.Spec.Containers[0]
	var metricsPort, httpPort int32
	for _, p := range c.Ports {
		switch p.Name {
		case "metrics":
			metricsPort = p.ContainerPort
		case "http":
			httpPort = p.ContainerPort
		}
	}
	if metricsPort == 0 || metricsPort == httpPort {
		t.Fatalf("api container ports %v: want a metrics port apart from http", c.Ports)
	}
	addr := ""
	for _, e := range c.Env {
		if e.Name == "GATEHOUSE_METRICS_ADDR" {
			addr = e.Value
		}
	}
	if addr != "0.0.0.0:"+strconv.Itoa(int(metricsPort)) {
		t.Errorf("GATEHOUSE_METRICS_ADDR %q, want the metrics container port %d", addr, metricsPort)
	}
	if a := api.Spec.Template.Annotations["prometheus.io/port"]; a != "" && a != strconv.Itoa(int(metricsPort)) {
		t.Errorf("prometheus.io/port %s is not the metrics port %d", a, metricsPort)
	}

	for name, ing := range m.ingresses {
		for _, rule := range ing.Spec.Rules {
			for _, p := range rule.HTTP.Paths {
				svc := m.services[p.Backend.Service.Name]
				if svc == nil {
					t.Fatalf("Ingress %s routes to a missing Service %s", name, p.Backend.Service.Name)
				}
				if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(api.Spec.Template.Labels)) {
					t.Errorf("Ingress %s routes to %s, which does not select the api pods", name, svc.Name)
				}
				if slices.ContainsFunc(svc.Spec.Ports, func(sp corev1.ServicePort) bool {
					return sp.TargetPort.String() == "metrics" || sp.TargetPort.IntValue() == int(metricsPort)
				}) {
					t.Errorf("Ingress %s routes to Service %s, which exposes the metrics port", name, svc.Name)
				}
			}
		}
	}
}
