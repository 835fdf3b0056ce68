package deploycheck

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// secretSources names, per values set, the Secret each credential must be
// read from.
var secretSources = map[string]map[string]string{
	"default": {
		"GATEHOUSE_DATABASE_URL":             "gatehouse",
		"GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN": "gatehouse",
	},
	"production": {
		"GATEHOUSE_DATABASE_URL":             "gatehouse-credentials",
		"GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN": "gatehouse-credentials",
		"GATEHOUSE_TEMPORAL_API_KEY":         "gatehouse-temporal",
	},
}

func TestManifests_SecretsAreReferencedNotInlined(t *testing.T) {
	for _, set := range valueSets {
		m := rendered(t, set)
		for owner, pod := range m.podTemplates() {
			for _, c := range pod.Spec.Containers {
				where := set + " " + owner + " container " + c.Name
				checkEnvReferencesSecrets(t, where, c.Env, secretSources[set])
				if env(c.Env, "GATEHOUSE_DATABASE_URL") == nil {
					t.Errorf("%s: GATEHOUSE_DATABASE_URL is not set", where)
				}
			}
		}
		for name, cm := range m.configMaps {
			for key, value := range cm.Data {
				if looksSecret(key) || credentialInURL(value) {
					t.Errorf("%s: ConfigMap %s holds a credential in %s", set, name, key)
				}
			}
		}
	}
}

func TestManifests_APIGetsBootstrapToken(t *testing.T) {
	for _, set := range valueSets {
		api := rendered(t, set).deployments["gatehouse-api"]
		if api == nil {
			t.Fatalf("%s: no gatehouse-api Deployment", set)
		}
		if env(api.Spec.Template.Spec.Containers[0].Env, "GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN") == nil {
			t.Errorf("%s: api does not receive GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN", set)
		}
	}
}

// Production talks to Temporal Cloud: api and worker read the API key.
func TestManifests_TemporalCloudAPIKey(t *testing.T) {
	m := rendered(t, "production")
	for _, name := range []string{"gatehouse-api", "gatehouse-worker"} {
		d := m.deployments[name]
		if d == nil {
			t.Fatalf("no %s Deployment", name)
		}
		if env(d.Spec.Template.Spec.Containers[0].Env, "GATEHOUSE_TEMPORAL_API_KEY") == nil {
			t.Errorf("%s does not receive GATEHOUSE_TEMPORAL_API_KEY", name)
		}
	}
}

// With existingSecret the chart must not create a Secret of its own.
func TestManifests_ExistingSecretCreatesNone(t *testing.T) {
	if n := len(rendered(t, "production").secrets); n != 0 {
		t.Errorf("production values use existingSecret but the chart renders %d Secret(s)", n)
	}
}

func checkEnvReferencesSecrets(t *testing.T, where string, vars []corev1.EnvVar, sources map[string]string) {
	t.Helper()
	for _, v := range vars {
		if credentialInURL(v.Value) {
			t.Errorf("%s: %s inlines a credential in its value", where, v.Name)
		}
		if !looksSecret(v.Name) {
			continue
		}
		if v.Value != "" || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s: %s is not read from a Secret (secretKeyRef)", where, v.Name)
			continue
		}
		if want, ok := sources[v.Name]; ok && v.ValueFrom.SecretKeyRef.Name != want {
			t.Errorf("%s: %s comes from Secret %q, want %q", where, v.Name, v.ValueFrom.SecretKeyRef.Name, want)
		}
	}
}

// credentialInURL reports whether s is a URL with a user:password part.
func credentialInURL(s string) bool {
	scheme := strings.Index(s, "://")
	if scheme < 0 {
		return false
	}
	rest := s[scheme+3:]
	if slash := strings.IndexAny(rest, "/?#"); slash >= 0 {
		rest = rest[:slash]
	}
	at := strings.LastIndex(rest, "@")
	return at >= 0 && strings.Contains(rest[:at], ":")
}

func env(vars []corev1.EnvVar, name string) *corev1.EnvVar {
	for i := range vars {
		if vars[i].Name == name {
			return &vars[i]
		}
	}
	return nil
}

func TestCredentialInURL(t *testing.T) {
	cases := map[string]bool{
		"postgres://u:p@db:5432/x":        true,
		"postgres://u@db:5432/x":          false,
		"https://example.com/a@b:c":       false,
		"temporal-frontend:7233":          false,
		"http://otel:4318":                false,
		"postgresql://a:b@h/db?sslmode=x": true,
	}
	for s, want := range cases {
		if got := credentialInURL(s); got != want {
			t.Errorf("credentialInURL(%q) = %v, want %v", s, got, want)
		}
	}
}
