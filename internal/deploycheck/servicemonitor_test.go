package deploycheck

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// With monitoring on, Prometheus scrapes both roles: each ServiceMonitor
// selects a Service that exposes the port it names, and that port is the
// one the role serves /metrics on.
func TestManifests_ServiceMonitorsScrapeTheAPIAndTheWorker(t *testing.T) {
	m := rendered(t, "production")
	wantPort := map[string]string{"api": "metrics", "worker": "health"}
	for component, port := range wantPort {
		var sm *unstructured.Unstructured
		for _, s := range m.serviceMonitors {
			if s.GetLabels()["app.kubernetes.io/component"] == component {
				sm = s
			}
		}
		if sm == nil {
			t.Fatalf("no ServiceMonitor for the %s", component)
		}
		sel, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		if len(eps) != 1 {
			t.Fatalf("%s: %d endpoints", component, len(eps))
		}
		ep := eps[0].(map[string]any)
		if ep["port"] != port || ep["path"] != "/metrics" {
			t.Errorf("%s ServiceMonitor scrapes %v %v, want port %s /metrics", component, ep["port"], ep["path"], port)
		}
		matched := 0
		for name, svc := range m.services {
			if !labels.SelectorFromSet(sel).Matches(labels.Set(svc.Labels)) {
				continue
			}
			matched++
			exposes := false
			for _, p := range svc.Spec.Ports {
				exposes = exposes || p.Name == port
			}
			if !exposes {
				t.Errorf("Service %s (selected for the %s) has no port %s", name, component, port)
			}
			for _, d := range m.deployments {
				if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) &&
					d.Spec.Template.Labels["app.kubernetes.io/component"] != component {
					t.Errorf("Service %s also selects %s pods", name, d.Spec.Template.Labels["app.kubernetes.io/component"])
				}
			}
		}
		if matched != 1 {
			t.Errorf("%s ServiceMonitor selects %d Services, want 1", component, matched)
		}
	}
}

// Traces tell the roles apart: api and worker pods name distinct services.
func TestManifests_APIAndWorkerTraceUnderDistinctServiceNames(t *testing.T) {
	names := map[string]string{}
	for _, d := range rendered(t, "default").deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.Name == "OTEL_SERVICE_NAME" {
					names[d.Spec.Template.Labels["app.kubernetes.io/component"]] = e.Value
				}
			}
		}
	}
	if names["api"] != "gatehouse-api" || names["worker"] != "gatehouse-worker" {
		t.Fatalf("OTEL_SERVICE_NAME by role: %v", names)
	}
}
