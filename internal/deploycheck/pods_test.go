package deploycheck

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestManifests_PodsAreHardened(t *testing.T) {
	for _, set := range append(valueSets, "mtls") {
		for owner, pod := range rendered(t, set).podTemplates() {
			spec := pod.Spec
			where := set + " " + owner
			if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
				t.Errorf("%s: service account token is mounted", where)
			}
			podNonRoot := spec.SecurityContext != nil && isTrue(spec.SecurityContext.RunAsNonRoot)
			if !podNonRoot {
				t.Errorf("%s: pod securityContext.runAsNonRoot is not true", where)
			}
			for _, c := range spec.Containers {
				checkContainerHardened(t, where+" container "+c.Name, c, podNonRoot)
			}
		}
	}
}

func checkContainerHardened(t *testing.T, where string, c corev1.Container, podNonRoot bool) {
	t.Helper()
	sc := c.SecurityContext
	if sc == nil {
		t.Errorf("%s: no securityContext", where)
		return
	}
	if sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot || sc.RunAsNonRoot == nil && !podNonRoot {
		t.Errorf("%s: runAsNonRoot is not true", where)
	}
	if !isTrue(sc.ReadOnlyRootFilesystem) {
		t.Errorf("%s: readOnlyRootFilesystem is not true", where)
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("%s: allowPrivilegeEscalation is not false", where)
	}
	if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("%s: capabilities do not drop ALL", where)
	}
	if !pinnedTag(c.Image) {
		t.Errorf("%s: image %q is not pinned", where, c.Image)
	}
	// A read-only root needs somewhere writable for data and temp files.
	if !slices.ContainsFunc(c.VolumeMounts, func(v corev1.VolumeMount) bool { return v.MountPath == "/tmp" }) {
		t.Errorf("%s: no writable /tmp mount", where)
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

func TestManifests_APIProbes(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		api := m.deployments["gatehouse-api"]
		if api == nil {
			t.Fatalf("%s: no gatehouse-api Deployment", set)
		}
		c := api.Spec.Template.Spec.Containers[0]
		if !slices.Equal(c.Args, []string{"api"}) {
			t.Errorf("%s: api args %v", set, c.Args)
		}
		checkHTTPProbe(t, set+" liveness", c, c.LivenessProbe, "/healthz")
		checkHTTPProbe(t, set+" readiness", c, c.ReadinessProbe, "/readyz")
	}
}

// checkHTTPProbe checks probe GETs path on a port the container declares.
func checkHTTPProbe(t *testing.T, where string, c corev1.Container, probe *corev1.Probe, path string) {
	t.Helper()
	if probe == nil || probe.HTTPGet == nil {
		t.Errorf("%s: no httpGet probe", where)
		return
	}
	if probe.HTTPGet.Path != path {
		t.Errorf("%s: probe path %q, want %q", where, probe.HTTPGet.Path, path)
	}
	if !declaresPort(c, probe.HTTPGet.Port) {
		t.Errorf("%s: probe port %s is not a container port", where, probe.HTTPGet.Port.String())
	}
}

func declaresPort(c corev1.Container, port intstr.IntOrString) bool {
	return slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool {
		if port.Type == intstr.String {
			return p.Name == port.StrVal
		}
		return p.ContainerPort == port.IntVal
	})
}

func TestManifests_WorkerRunsWorker(t *testing.T) {
	for _, set := range valueSets {
		w := rendered(t, set).deployments["gatehouse-worker"]
		if w == nil {
			t.Fatalf("%s: no gatehouse-worker Deployment", set)
		}
		if args := w.Spec.Template.Spec.Containers[0].Args; !slices.Equal(args, []string{"worker"}) {
			t.Errorf("%s: worker args %v", set, args)
		}
	}
}

// The migration Job runs before every install and upgrade, so it may depend
// only on objects that exist by then: hooks with a lower weight.
func TestManifests_MigrationJobIsPreInstallHook(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		job := m.jobs["gatehouse-migrate"]
		if job == nil {
			t.Fatalf("%s: no gatehouse-migrate Job", set)
		}
		hooks := strings.Split(job.Annotations["helm.sh/hook"], ",")
		for _, want := range []string{"pre-install", "pre-upgrade"} {
			if !slices.Contains(hooks, want) {
				t.Errorf("%s: migration Job hooks %v lack %s", set, hooks, want)
			}
		}
		if !strings.Contains(job.Annotations["helm.sh/hook-delete-policy"], "before-hook-creation") {
			t.Errorf("%s: migration Job is not replaced on the next upgrade (hook-delete-policy)", set)
		}
		pod := job.Spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: migration restartPolicy %q", set, pod.RestartPolicy)
		}
		if args := pod.Containers[0].Args; !slices.Equal(args, []string{"migrate"}) {
			t.Errorf("%s: migration args %v", set, args)
		}
		if _, ok := m.serviceAccounts[pod.ServiceAccountName]; ok {
			t.Errorf("%s: migration uses ServiceAccount %q, which does not exist yet at pre-install", set, pod.ServiceAccountName)
		}
		for _, c := range pod.Containers {
			if len(c.EnvFrom) > 0 {
				t.Errorf("%s: migration reads envFrom %v, which does not exist yet at pre-install", set, c.EnvFrom)
			}
		}
		checkChartSecretPrecedes(t, set, m, hookWeight(job.Annotations))
	}
}

// checkChartSecretPrecedes checks every Secret the chart creates is a
// pre-install/pre-upgrade hook weighted before the migration Job.
func checkChartSecretPrecedes(t *testing.T, set string, m *manifests, jobWeight string) {
	t.Helper()
	for name, s := range m.secrets {
		hooks := strings.Split(s.Annotations["helm.sh/hook"], ",")
		if !slices.Contains(hooks, "pre-install") || !slices.Contains(hooks, "pre-upgrade") {
			t.Errorf("%s: Secret %s is not created before the migration Job (hooks %v)", set, name, hooks)
		}
		if !weightBefore(hookWeight(s.Annotations), jobWeight) {
			t.Errorf("%s: Secret %s hook weight %s is not below the Job's %s", set, name, hookWeight(s.Annotations), jobWeight)
		}
	}
}

func hookWeight(annotations map[string]string) string {
	if w := annotations["helm.sh/hook-weight"]; w != "" {
		return w
	}
	return "0"
}

func weightBefore(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	return errA == nil && errB == nil && x < y
}
