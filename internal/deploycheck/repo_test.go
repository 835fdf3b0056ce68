package deploycheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
)

// repoRoot is the directory holding Gatehouse's go.mod, found upwards from
// the package directory the test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/gatehouse/gatehouse\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod of github.com/gatehouse/gatehouse not found above the test directory")
		}
		dir = parent
	}
}

// requiredVersion returns the version go.mod requires for module, without
// the leading "v".
func requiredVersion(t *testing.T, module string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+v(\S+)`)
	m := re.FindSubmatch(data)
	if m == nil {
		t.Fatalf("go.mod does not require %s", module)
	}
	return string(m[1])
}

// unknownGatehouseNames returns the GATEHOUSE_* names in names that the code
// does not read (they are missing from config.Vars).
func unknownGatehouseNames(names []string) []string {
	known := config.Names()
	var unknown []string
	for _, name := range names {
		if strings.HasPrefix(name, "GATEHOUSE_") && !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	return slices.Compact(unknown)
}

// looksSecret reports whether an environment variable of this name carries a
// credential and so must come from a Secret.
func looksSecret(name string) bool {
	for _, marker := range []string{"PASSWORD", "PWD", "TOKEN", "SECRET", "API_KEY", "DATABASE_URL", "PRIVATE_KEY"} {
		if strings.Contains(name, marker) {
			return true
		}
	}
	return false
}

// pinnedTag reports whether image names an explicit tag other than latest
// (a digest also counts as pinned).
func pinnedTag(image string) bool {
	if strings.Contains(image, "@sha256:") {
		return true
	}
	slash := strings.LastIndex(image, "/")
	colon := strings.LastIndex(image, ":")
	if colon <= slash {
		return false
	}
	tag := image[colon+1:]
	return tag != "" && tag != "latest" && !strings.Contains(tag, "$")
}

func TestPinnedTag(t *testing.T) {
	cases := map[string]bool{
		"postgres:17.6":                  true,
		"temporalio/server:1.31.4":       true,
		"localhost:5000/gatehouse:1.0":   true,
		"gatehouse@sha256:0123abcd":      true,
		"postgres":                       false,
		"postgres:latest":                false,
		"localhost:5000/gatehouse":       false,
		"ghcr.io/gatehouse/gatehouse:":   false,
		"temporalio/ui:${UI_VERSION}":    false,
		"registry.example.com:443/image": false,
	}
	for image, want := range cases {
		if got := pinnedTag(image); got != want {
			t.Errorf("pinnedTag(%q) = %v, want %v", image, got, want)
		}
	}
}

func TestLooksSecret(t *testing.T) {
	for _, name := range []string{"GATEHOUSE_DATABASE_URL", "GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN", "GATEHOUSE_TEMPORAL_API_KEY", "POSTGRES_PASSWORD", "POSTGRES_PWD"} {
		if !looksSecret(name) {
			t.Errorf("looksSecret(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"GATEHOUSE_TEMPORAL_ADDRESS", "GATEHOUSE_LOG_LEVEL", "GATEHOUSE_TEMPORAL_TLS_CERT"} {
		if looksSecret(name) {
			t.Errorf("looksSecret(%q) = true, want false", name)
		}
	}
}
