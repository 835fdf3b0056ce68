package deploycheck

import (
	"regexp"
	"strings"
	"testing"
)

// Every api and worker pod must see the same blobs; by default (and in the
// production example) that is one S3 bucket, not a per-pod directory.
func TestManifests_BlobsDefaultToOneS3Bucket(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		for _, name := range []string{"gatehouse-api", "gatehouse-worker"} {
			s, err := blobStoreOf(m, m.deployments[name].Spec.Template.Spec)
			if err != nil {
				t.Fatalf("%s %s: %v", set, name, err)
			}
			if s.s3 == "" {
				t.Errorf("%s: %s keeps blobs in %s, not S3", set, name, s.dir)
			}
		}
		if problem := sharedBlobStoreProblem(m); problem != "" {
			t.Errorf("%s: %s", set, problem)
		}
	}
}

// awsKeyName matches the variables that carry static AWS keys.
var awsKeyName = regexp.MustCompile(`ACCESS_KEY|AWS_SECRET|AWS_SESSION_TOKEN`)

// Without static keys the pods carry none, so the SDK's default chain
// (IRSA, EKS Pod Identity, instance role) signs.
func TestManifests_NoStaticBlobKeysRenderNoKeyVariables(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		for owner, pod := range m.podTemplates() {
			for _, c := range pod.Spec.Containers {
				env, err := containerEnv(m, c)
				if err != nil {
					t.Fatalf("%s %s: %v", set, owner, err)
				}
				for name := range env {
					if awsKeyName.MatchString(name) {
						t.Errorf("%s: %s container %s sets %s without static keys configured", set, owner, c.Name, name)
					}
				}
			}
		}
		for _, name := range []string{"gatehouse-api", "gatehouse-worker"} {
			if s, err := blobStoreOf(m, m.deployments[name].Spec.Template.Spec); err != nil || s.s3 == "" {
				t.Errorf("%s: %s does not use the S3 store (%v)", set, name, err)
			}
		}
	}
}

// Static keys, when given, reach api and worker only through Secret
// references: an existing Secret, or the chart's Secret filled from values.
func TestManifests_StaticBlobKeysComeFromSecrets(t *testing.T) {
	cases := map[string]struct {
		extra      []string
		wantSecret string
	}{
		"existing secret": {[]string{
			"--set", "blobs.s3.credentials.existingSecret=blob-keys",
		}, "blob-keys"},
		"values": {[]string{
			"--set", "blobs.s3.credentials.accessKeyId=AKIDVALUES", "--set", "blobs.s3.credentials.secretAccessKey=values-secret",
		}, "gatehouse"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := decodeManifests(render(t, tc.extra...))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{"gatehouse-api", "gatehouse-worker"} {
				c := m.deployments[d].Spec.Template.Spec.Containers[0]
				for _, key := range []string{"GATEHOUSE_BLOB_S3_ACCESS_KEY_ID", "GATEHOUSE_BLOB_S3_SECRET_ACCESS_KEY"} {
					v := env(c.Env, key)
					if v == nil || v.Value != "" || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil || v.ValueFrom.SecretKeyRef.Name != tc.wantSecret {
						t.Errorf("%s: %s is not read from Secret %s: %+v", d, key, tc.wantSecret, v)
					}
				}
			}
			for cmName, cm := range m.configMaps {
				for k, v := range cm.Data {
					if awsKeyName.MatchString(k) || v == "AKIDVALUES" || v == "values-secret" {
						t.Errorf("ConfigMap %s holds blob key material in %s", cmName, k)
					}
				}
			}
			if tc.wantSecret == "gatehouse" {
				s := m.secrets["gatehouse"]
				if s == nil || s.StringData["s3-access-key-id"] != "AKIDVALUES" || s.StringData["s3-secret-access-key"] != "values-secret" {
					t.Errorf("the chart's Secret does not hold the keys from values: %+v", s)
				}
			}
		})
	}
}

// Blob settings that cannot work are refused at render time.
func TestHelm_RefusesBadBlobValues(t *testing.T) {
	cases := map[string][]string{
		"unknown backend":   {"--set", "blobs.backend=gcs"},
		"s3 without bucket": {"--set", "blobs.s3.bucket="},
		"bad endpoint":      {"--set", "blobs.s3.endpoint=minio:9000"},
		"half a key pair":   {"--set", "blobs.s3.credentials.accessKeyId=AKID"},
		"keys twice": {"--set", "blobs.s3.credentials.existingSecret=blob-keys",
			"--set", "blobs.s3.credentials.accessKeyId=AKID", "--set", "blobs.s3.credentials.secretAccessKey=s"},
		"keys in values, no chart Secret": {"--set", "secrets.existingSecret=mine",
			"--set", "blobs.s3.credentials.accessKeyId=AKID", "--set", "blobs.s3.credentials.secretAccessKey=s"},
	}
	for name, extra := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"template", "gatehouse", chartDir(t), "--kube-version", kubeVersion}, extra...)
			_, err := runHelm(t, args...)
			if err == nil {
				t.Fatalf("helm template accepted %v", extra)
			}
			if !strings.Contains(err.Error(), "blobs") {
				t.Fatalf("refused without naming the blobs values: %v", err)
			}
		})
	}
}
