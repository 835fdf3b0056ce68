package deploycheck

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/dotenv"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose loads docker-compose.yml with the compose-spec loader, schema
// validation and consistency checks on, interpolating from env.
func loadCompose(t *testing.T, env map[string]string) (*types.Project, error) {
	t.Helper()
	root := repoRoot(t)
	details := types.ConfigDetails{
		WorkingDir:  root,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(root, "docker-compose.yml")}},
		Environment: env,
	}
	return loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SetProjectName("gatehouse", true)
	})
}

// exampleProject loads docker-compose.yml with the values of .env.example,
// as a user who copied it to .env would.
func exampleProject(t *testing.T) *types.Project {
	t.Helper()
	env, err := dotenv.Read(filepath.Join(repoRoot(t), ".env.example"))
	if err != nil {
		t.Fatalf("read .env.example: %v", err)
	}
	project, err := loadCompose(t, env)
	if err != nil {
		t.Fatalf("docker-compose.yml with .env.example does not load: %v", err)
	}
	return project
}

// isGatehouse reports whether a service runs the project's own image.
func isGatehouse(s types.ServiceConfig) bool {
	return s.Build != nil || strings.HasPrefix(s.Image, "gatehouse:")
}

func TestCompose_LoadsAndHasEveryService(t *testing.T) {
	project := exampleProject(t)
	want := []string{"postgres", "temporal-schema", "temporal", "temporal-namespace", "temporal-ui", "migrate", "api", "worker"}
	for _, name := range want {
		if _, ok := project.Services[name]; !ok {
			t.Errorf("service %q missing", name)
		}
	}
	for _, name := range []string{"migrate", "api", "worker"} {
		if s := project.Services[name]; !isGatehouse(s) || s.Build == nil {
			t.Errorf("service %q does not build the project's Dockerfile", name)
		}
	}
}

func TestCompose_EveryServiceIsHealthCheckedOrGated(t *testing.T) {
	for name, s := range exampleProject(t).Services {
		if s.HealthCheck != nil && !s.HealthCheck.Disable && len(s.HealthCheck.Test) > 0 {
			continue
		}
		gated := len(s.DependsOn) > 0
		for dep, d := range s.DependsOn {
			if d.Condition != types.ServiceConditionHealthy && d.Condition != types.ServiceConditionCompletedSuccessfully {
				t.Errorf("service %q: depends_on %q has condition %q, want service_healthy or service_completed_successfully", name, dep, d.Condition)
				gated = false
			}
		}
		if !gated {
			t.Errorf("service %q has neither a healthcheck nor a depends_on condition", name)
		}
	}
}

func TestCompose_HealthChecks(t *testing.T) {
	project := exampleProject(t)
	for name, probe := range map[string]string{"postgres": "pg_isready", "temporal": "7233"} {
		hc := project.Services[name].HealthCheck
		if hc == nil || !strings.Contains(strings.Join(hc.Test, " "), probe) {
			t.Errorf("service %q: healthcheck does not use %q", name, probe)
		}
	}
}

func TestCompose_ImagesArePinned(t *testing.T) {
	for name, s := range exampleProject(t).Services {
		if !pinnedTag(s.Image) {
			t.Errorf("service %q: image %q is not pinned to a tag", name, s.Image)
		}
	}
}

// The Temporal images run the same server and UI versions Gatehouse embeds.
func TestCompose_TemporalImagesMatchGoMod(t *testing.T) {
	server := requiredVersion(t, "go.temporal.io/server")
	ui := requiredVersion(t, "github.com/temporalio/ui-server/v2")
	want := map[string]string{
		"temporal":           "temporalio/server:" + server,
		"temporal-schema":    "temporalio/admin-tools:" + server,
		"temporal-namespace": "temporalio/admin-tools:" + server,
		"temporal-ui":        "temporalio/ui:" + ui,
	}
	project := exampleProject(t)
	for name, image := range want {
		if got := project.Services[name].Image; got != image {
			t.Errorf("service %q: image %q, want %q (go.mod)", name, got, image)
		}
	}
}

func TestCompose_GatehouseEnvironmentMatchesConfig(t *testing.T) {
	for name, s := range exampleProject(t).Services {
		if !isGatehouse(s) {
			continue
		}
		var names []string
		for key := range s.Environment {
			names = append(names, key)
		}
		for _, unknown := range unknownGatehouseNames(names) {
			t.Errorf("service %q sets %s, which the code does not read (not in config.Vars)", name, unknown)
		}
		for _, need := range []string{"GATEHOUSE_DATABASE_URL", "GATEHOUSE_TEMPORAL_ADDRESS", "GATEHOUSE_TEMPORAL_NAMESPACE"} {
			if s.Environment[need] == nil || *s.Environment[need] == "" {
				t.Errorf("service %q: %s is not set", name, need)
			}
		}
	}
}

func TestCompose_SearchAttributesRegistered(t *testing.T) {
	job := exampleProject(t).Services["temporal-namespace"]
	script := strings.Join(append(job.Entrypoint, job.Command...), "\n")
	for _, attr := range []string{"GatehouseProject", "GatehouseGate", "GatehouseKind"} {
		if !strings.Contains(script, attr) {
			t.Errorf("temporal-namespace does not register search attribute %s", attr)
		}
	}
	if !strings.Contains(script, "--type Keyword") {
		t.Error("temporal-namespace does not create Keyword search attributes")
	}
}

func TestCompose_StateLivesInNamedVolumes(t *testing.T) {
	project := exampleProject(t)
	for _, name := range []string{"postgres", "api", "worker"} {
		s := project.Services[name]
		named := slices.ContainsFunc(s.Volumes, func(v types.ServiceVolumeConfig) bool {
			_, declared := project.Volumes[v.Source]
			return v.Type == types.VolumeTypeVolume && declared
		})
		if !named {
			t.Errorf("service %q keeps no state in a named volume", name)
		}
	}
}

// defaulted matches an interpolation with a fallback: ${NAME:-x} or ${NAME-x}.
var defaulted = regexp.MustCompile(`\$\{([A-Za-z0-9_]+):?-`)

// Secrets come only from the environment: without .env the file must refuse
// to load rather than fall back to a password written into it.
func TestCompose_HoldsNoSecrets(t *testing.T) {
	if _, err := loadCompose(t, map[string]string{}); err == nil {
		t.Fatal("docker-compose.yml loads without .env: a secret must have a default in the file")
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range defaulted.FindAllStringSubmatch(string(raw), -1) {
		if looksSecret(m[1]) {
			t.Errorf("docker-compose.yml gives %s a default (%s): secrets must come from .env", m[1], m[0])
		}
	}
	example, err := dotenv.Read(filepath.Join(repoRoot(t), ".env.example"))
	if err != nil {
		t.Fatal(err)
	}
	for key := range example {
		if !looksSecret(key) {
			continue
		}
		without := map[string]string{}
		for k, v := range example {
			if k != key {
				without[k] = v
			}
		}
		if _, err := loadCompose(t, without); err == nil {
			t.Errorf("docker-compose.yml loads without %s: it must be required (${%s:?...}), not defaulted", key, key)
		}
	}
}
