package deploycheck

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/gatehouse/gatehouse/internal/config"
)

// composeBlobStore names the blob store a compose service opens: its S3
// bucket, or the named volume (and directory in it) holding its blob
// directory. A directory on no named volume is per-container and refused.
func composeBlobStore(project *types.Project, service string) (string, error) {
	s, ok := project.Services[service]
	if !ok {
		return "", fmt.Errorf("no service %q", service)
	}
	cfg, err := config.FromLookup(func(k string) (string, bool) {
		v, ok := s.Environment[k]
		if !ok || v == nil {
			return "", false
		}
		return *v, true
	})
	if err != nil {
		return "", fmt.Errorf("service %q: %w", service, err)
	}
	if b := cfg.BlobS3; b.Bucket != "" {
		return fmt.Sprintf("s3 endpoint=%q bucket=%q", b.Endpoint, b.Bucket), nil
	}
	dir := path.Clean(cfg.BlobDir)
	var best *types.ServiceVolumeConfig
	for i, v := range s.Volumes {
		target := path.Clean(v.Target)
		if (dir == target || strings.HasPrefix(dir, target+"/")) && (best == nil || len(target) > len(path.Clean(best.Target))) {
			best = &s.Volumes[i]
		}
	}
	if best == nil || best.Type != types.VolumeTypeVolume {
		return "", fmt.Errorf("service %q keeps blobs in %s on no named volume", service, dir)
	}
	if _, declared := project.Volumes[best.Source]; !declared {
		return "", fmt.Errorf("service %q keeps blobs on undeclared volume %q", service, best.Source)
	}
	return fmt.Sprintf("volume %s at %s", best.Source, strings.TrimPrefix(dir, path.Clean(best.Target))), nil
}

// The api accepts uploads and the worker reads them: both open one store.
func TestCompose_APIAndWorkerShareOneBlobStore(t *testing.T) {
	project := exampleProject(t)
	api, err := composeBlobStore(project, "api")
	if err != nil {
		t.Fatal(err)
	}
	worker, err := composeBlobStore(project, "worker")
	if err != nil {
		t.Fatal(err)
	}
	if api != worker {
		t.Fatalf("api blob store %s, worker %s", api, worker)
	}
}

// composeBlobStore tells stores apart, so the test above can fail.
func TestComposeBlobStore_TellsStoresApart(t *testing.T) {
	str := func(s string) *string { return &s }
	svc := func(dir string, vols ...types.ServiceVolumeConfig) types.ServiceConfig {
		var s types.ServiceConfig // Environment and Volumes are promoted fields
		s.Environment, s.Volumes = types.MappingWithEquals{"GATEHOUSE_BLOB_DIR": str(dir)}, vols
		return s
	}
	vol := func(src, target string) types.ServiceVolumeConfig {
		return types.ServiceVolumeConfig{Type: types.VolumeTypeVolume, Source: src, Target: target}
	}
	project := &types.Project{
		Volumes: types.Volumes{"a": {}, "b": {}},
		Services: types.Services{
			"on-a":       svc("/data/blobs", vol("a", "/data")),
			"on-a-too":   svc("/srv/blobs", vol("a", "/srv")),
			"on-b":       svc("/data/blobs", vol("b", "/data")),
			"elsewhere":  svc("/data/blobs", vol("a", "/other")),
			"bind mount": svc("/data/blobs", types.ServiceVolumeConfig{Type: types.VolumeTypeBind, Source: "/host", Target: "/data"}),
		},
	}
	a, errA := composeBlobStore(project, "on-a")
	a2, errA2 := composeBlobStore(project, "on-a-too")
	b, errB := composeBlobStore(project, "on-b")
	if errA != nil || errA2 != nil || errB != nil || a != a2 || a == b {
		t.Fatalf("on-a %q %v, on-a-too %q %v, on-b %q %v", a, errA, a2, errA2, b, errB)
	}
	for _, name := range []string{"elsewhere", "bind mount"} {
		if got, err := composeBlobStore(project, name); err == nil {
			t.Errorf("%s: %q, want an error (not on a named volume)", name, got)
		}
	}
}
