package deploycheck

import (
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gatehouse/gatehouse/internal/config"
)

// podBlobStore is the blob store one container would open: the choice
// blobstore.FromConfig makes from the configuration its environment gives.
type podBlobStore struct {
	// s3 names endpoint, bucket, region and addressing when the S3 store is chosen.
	s3 string
	// dir is the filesystem store's root, and volume the pod volume holding
	// it at rel below its mount (nil: the image's own filesystem).
	dir, rel string
	volume   *corev1.Volume
}

// containerEnv resolves a container's environment as the kubelet would:
// envFrom ConfigMaps first, then env. A Secret reference reads as
// "secret:<name>/<key>", which is enough to tell where a value comes from.
func containerEnv(m *manifests, c corev1.Container) (map[string]string, error) {
	env := map[string]string{}
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef == nil {
			continue
		}
		cm := m.configMaps[from.ConfigMapRef.Name]
		if cm == nil {
			return nil, fmt.Errorf("envFrom names ConfigMap %q, which is not rendered", from.ConfigMapRef.Name)
		}
		for k, v := range cm.Data {
			env[from.Prefix+k] = v
		}
	}
	for _, v := range c.Env {
		switch {
		case v.ValueFrom != nil && v.ValueFrom.SecretKeyRef != nil:
			env[v.Name] = "secret:" + v.ValueFrom.SecretKeyRef.Name + "/" + v.ValueFrom.SecretKeyRef.Key
		case v.ValueFrom != nil:
			env[v.Name] = "valueFrom"
		default:
			env[v.Name] = v.Value
		}
	}
	return env, nil
}

// blobStoreOf resolves the blob store of the first container of pod.
func blobStoreOf(m *manifests, pod corev1.PodSpec) (podBlobStore, error) {
	c := pod.Containers[0]
	env, err := containerEnv(m, c)
	if err != nil {
		return podBlobStore{}, err
	}
	cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		return podBlobStore{}, err
	}
	if s := cfg.BlobS3; s.Bucket != "" {
		return podBlobStore{s3: fmt.Sprintf("endpoint=%q bucket=%q region=%q virtualHosted=%v", s.Endpoint, s.Bucket, s.Region, s.VirtualHostedStyle)}, nil
	}
	store := podBlobStore{dir: path.Clean(cfg.BlobDir)}
	var best string
	for _, vm := range c.VolumeMounts {
		mp := path.Clean(vm.MountPath)
		if store.dir != mp && !strings.HasPrefix(store.dir, mp+"/") || len(mp) <= len(best) {
			continue
		}
		for i := range pod.Volumes {
			if pod.Volumes[i].Name == vm.Name {
				best, store.volume = mp, &pod.Volumes[i]
				store.rel = path.Join(vm.SubPath, strings.TrimPrefix(store.dir, mp))
			}
		}
	}
	return store, nil
}

// sharedBlobStoreProblem says why the api and worker pods of m do not see
// one blob store, or returns "" when they do.
func sharedBlobStoreProblem(m *manifests) string {
	var stores []podBlobStore
	for _, name := range []string{"gatehouse-api", "gatehouse-worker"} {
		d := m.deployments[name]
		if d == nil {
			return "no Deployment " + name
		}
		s, err := blobStoreOf(m, d.Spec.Template.Spec)
		if err != nil {
			return name + ": " + err.Error()
		}
		if s.s3 == "" && (s.volume == nil || s.volume.PersistentVolumeClaim == nil) {
			return fmt.Sprintf("%s keeps blobs in %s on no PersistentVolumeClaim (a per-pod store)", name, s.dir)
		}
		stores = append(stores, s)
	}
	api, worker := stores[0], stores[1]
	switch {
	case api.s3 != "" || worker.s3 != "":
		if api.s3 != worker.s3 {
			return fmt.Sprintf("api uses S3 %q, worker S3 %q", api.s3, worker.s3)
		}
	case api.volume.PersistentVolumeClaim.ClaimName != worker.volume.PersistentVolumeClaim.ClaimName || api.rel != worker.rel:
		return fmt.Sprintf("api keeps blobs at %s of claim %s, worker at %s of claim %s",
			api.rel, api.volume.PersistentVolumeClaim.ClaimName, worker.rel, worker.volume.PersistentVolumeClaim.ClaimName)
	}
	return ""
}
