package deploycheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// helmBinary returns the helm to run: $HELM, else helm on PATH. Without one
// the test is skipped locally but fails in CI (CI=true), so a broken install
// step can never turn the chart checks into silent skips.
func helmBinary(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("HELM"); path != "" {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("HELM=%s: %v", path, err)
		}
		return path
	}
	if path, err := exec.LookPath("helm"); err == nil {
		return path
	}
	const how = "no helm: set HELM to a helm binary (export HELM=\"$(scripts/install-helm)\") or put helm on PATH"
	if os.Getenv("CI") == "true" {
		t.Fatal(how)
	}
	t.Skip(how)
	return ""
}

// kubeVersion is the Kubernetes version the chart is rendered for. Passed
// explicitly because a helm built with `go install` (no release ldflags)
// assumes v1.20, older than the chart's kubeVersion floor.
const kubeVersion = "1.33.0"

// chartDir and productionValues are the chart and its production example.
func chartDir(t *testing.T) string { return filepath.Join(repoRoot(t), "helm", "gatehouse") }

func productionValues(t *testing.T) string {
	return filepath.Join(repoRoot(t), "helm", "examples", "values-production.yaml")
}

// runHelm runs helm with args and returns stdout, or the combined error.
func runHelm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helmBinary(t), args...)
	// Keep helm away from the user's repositories, plugins and caches.
	home := t.TempDir()
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &helmError{args: args, err: err, stderr: stderr.String()}
	}
	return stdout.String(), nil
}

type helmError struct {
	args   []string
	err    error
	stderr string
}

func (e *helmError) Error() string {
	return "helm " + strings.Join(e.args, " ") + ": " + e.err.Error() + "\n" + e.stderr
}

// render runs helm template for the chart with extra args (values files, --set).
func render(t *testing.T, extra ...string) string {
	t.Helper()
	args := append([]string{"template", "gatehouse", chartDir(t), "--namespace", "gatehouse", "--kube-version", kubeVersion}, extra...)
	out, err := runHelm(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHelm_Lint(t *testing.T) {
	cases := map[string][]string{
		"default":    nil,
		"production": {"--values", productionValues(t)},
	}
	for name, extra := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"lint", chartDir(t), "--strict", "--kube-version", kubeVersion}, extra...)
			if out, err := runHelm(t, args...); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// values.schema.json must reject values that would weaken the deployment.
func TestHelm_SchemaRejectsBadValues(t *testing.T) {
	cases := map[string][]string{
		"writable root filesystem": {"--set", "securityContext.readOnlyRootFilesystem=false"},
		"root user":                {"--set", "podSecurityContext.runAsNonRoot=false"},
		"latest tag":               {"--set", "image.tag=latest"},
		"temporal address no port": {"--set", "temporal.address=temporal-frontend"},
		"unknown top-level key":    {"--set", "replicas=3"},
		"tls without secret":       {"--set", "temporal.tls.enabled=true"},
		"no database url":          {"--set", "secrets.databaseUrl="},
		"secret as literal env":    {"--set", "extraEnv[0].name=MY_API_KEY", "--set", "extraEnv[0].value=abc"},
		"bad log level":            {"--set", "config.logLevel=loud"},
	}
	for name, extra := range cases {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"template", "gatehouse", chartDir(t), "--kube-version", kubeVersion}, extra...)
			if _, err := runHelm(t, args...); err == nil {
				t.Fatalf("helm template accepted %v", extra)
			}
		})
	}
}
