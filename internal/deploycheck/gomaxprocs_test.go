package deploycheck

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gatehouse/gatehouse/internal/prodlike"
)

// goMaxProcsOf is the GOMAXPROCS a container of the rendering gets: the
// whole cores of its CPU request, rounded up, as the downward API computes
// a resourceFieldRef with divisor 1; found is false when the chart leaves
// it unset. It fails the test on a GOMAXPROCS that is not read from the
// container's own request in whole cores.
func goMaxProcsOf(t *testing.T, c corev1.Container) (procs int64, found bool) {
	t.Helper()
	for _, e := range c.Env {
		if e.Name != "GOMAXPROCS" {
			continue
		}
		var ref *corev1.ResourceFieldSelector
		if e.ValueFrom != nil {
			ref = e.ValueFrom.ResourceFieldRef
		}
		if ref == nil || ref.ContainerName != c.Name || ref.Resource != "requests.cpu" || ref.Divisor.MilliValue() != 1000 {
			t.Fatalf("container %s: GOMAXPROCS must come from its own requests.cpu in whole cores, got %+v", c.Name, e)
		}
		req := c.Resources.Requests.Cpu()
		return (req.MilliValue() + 999) / 1000, true
	}
	return 0, false
}

// Every api and worker pod runs Go on as many threads as its CPU request
// has cores (rounded up), not one per core of the node; the production
// topology the benchmarks and fault tests start runs its processes the
// same way (prodlike.PodGOMAXPROCS).
func TestManifests_GOMAXPROCSFollowsTheCPURequest(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		for _, name := range []string{"api", "worker"} {
			d := m.deployments["gatehouse-"+name]
			if d == nil {
				t.Fatalf("%s: no %s deployment", set, name)
			}
			procs, found := goMaxProcsOf(t, d.Spec.Template.Spec.Containers[0])
			if !found {
				t.Fatalf("%s: the %s container has no GOMAXPROCS", set, name)
			}
			if set == "default" && procs != prodlike.PodGOMAXPROCS {
				t.Errorf("default values give the %s pod GOMAXPROCS %d; the production-topology stack runs it with %d", name, procs, prodlike.PodGOMAXPROCS)
			}
		}
	}
}

// With a CPU limit the chart leaves GOMAXPROCS to Go, which reads the
// container's CPU limit itself; a request-derived value would override it.
func TestManifests_ACPULimitLeavesGOMAXPROCSToGo(t *testing.T) {
	m, err := decodeManifests(render(t, "--set", "api.resources.limits.cpu=3", "--set", "worker.resources.limits.cpu=3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"api", "worker"} {
		if _, found := goMaxProcsOf(t, m.deployments["gatehouse-"+name].Spec.Template.Spec.Containers[0]); found {
			t.Errorf("the %s container has a CPU limit and still sets GOMAXPROCS", name)
		}
	}
}
