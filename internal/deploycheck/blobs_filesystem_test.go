package deploycheck

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A filesystem blob store on each pod's own volume splits the store as soon
// as a second pod exists: more api replicas, the api autoscaler, or any
// worker (workers read blobs too). The chart refuses to render that.
func TestHelm_FilesystemBlobsWithoutSharedClaimAreRefused(t *testing.T) {
	fs := []string{"--set", "blobs.backend=filesystem"}
	cases := map[string][]string{
		"two api replicas": {"--set", "api.replicas=2", "--set", "worker.replicas=0"},
		"api autoscaler":   {"--set", "api.replicas=1", "--set", "worker.replicas=0", "--set", "api.autoscaling.enabled=true"},
		"one worker":       {"--set", "api.replicas=1", "--set", "worker.replicas=1"},
		"worker autoscaler": {"--set", "api.replicas=1", "--set", "worker.replicas=0",
			"--set", "worker.autoscaling.enabled=true"},
	}
	for name, extra := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"template", "gatehouse", chartDir(t), "--kube-version", kubeVersion}, append(fs, extra...)...)
			_, err := runHelm(t, args...)
			if err == nil {
				t.Fatalf("helm template rendered a per-pod filesystem blob store with %v", extra)
			}
			for _, want := range []string{"blobs.filesystem.existingClaim", "ReadWriteMany"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not mention %s: %v", want, err)
				}
			}
		})
	}
}

// One api pod and no worker pod may keep blobs on the pod's own volume.
func TestHelm_FilesystemBlobsOnOnePodRender(t *testing.T) {
	m, err := decodeManifests(render(t, "--set", "blobs.backend=filesystem", "--set", "api.replicas=1", "--set", "worker.replicas=0"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := blobStoreOf(m, m.deployments["gatehouse-api"].Spec.Template.Spec)
	if err != nil || s.s3 != "" || s.volume == nil {
		t.Fatalf("api blob store %+v (%v), want a directory on a pod volume", s, err)
	}
}

// With a ReadWriteMany claim, api and worker mount the same claim at the
// blob directory, at any replica count.
func TestHelm_FilesystemBlobsShareOneReadWriteManyClaim(t *testing.T) {
	scale := []string{"--set", "blobs.backend=filesystem", "--set", "api.replicas=3", "--set", "worker.replicas=2"}
	cases := map[string]struct {
		extra     []string
		wantClaim string
	}{
		"existing claim": {[]string{"--set", "blobs.filesystem.existingClaim=shared-blobs"}, "shared-blobs"},
		"chart claim": {[]string{"--set", "blobs.filesystem.persistence.enabled=true",
			"--set", "blobs.filesystem.persistence.storageClassName=efs", "--set", "api.autoscaling.enabled=true"}, "gatehouse-blobs"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := decodeManifests(render(t, append(scale, tc.extra...)...))
			if err != nil {
				t.Fatal(err)
			}
			if problem := sharedBlobStoreProblem(m); problem != "" {
				t.Fatal(problem)
			}
			for _, d := range []string{"gatehouse-api", "gatehouse-worker"} {
				s, _ := blobStoreOf(m, m.deployments[d].Spec.Template.Spec)
				if s.volume.PersistentVolumeClaim.ClaimName != tc.wantClaim {
					t.Errorf("%s mounts claim %s at its blob directory, want %s", d, s.volume.PersistentVolumeClaim.ClaimName, tc.wantClaim)
				}
			}
			pvc, created := m.pvcs[tc.wantClaim]
			if tc.wantClaim == "gatehouse-blobs" != created {
				t.Fatalf("chart renders claims %v, want %s created: %v", slices.Sorted(maps.Keys(m.pvcs)), tc.wantClaim, tc.wantClaim == "gatehouse-blobs")
			}
			if created {
				checkChartBlobClaim(t, pvc)
			}
		})
	}
}

func checkChartBlobClaim(t *testing.T, pvc *corev1.PersistentVolumeClaim) {
	t.Helper()
	if !slices.Equal(pvc.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) {
		t.Errorf("claim %s access modes %v, want [ReadWriteMany]", pvc.Name, pvc.Spec.AccessModes)
	}
	if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName != "efs" {
		t.Errorf("claim %s storage class %v, want efs", pvc.Name, pvc.Spec.StorageClassName)
	}
	if pvc.Annotations["helm.sh/resource-policy"] != "keep" {
		t.Errorf("claim %s is deleted with the release (no helm.sh/resource-policy: keep)", pvc.Name)
	}
}
