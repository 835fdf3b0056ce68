package deploycheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// otelVersionExceptions are go.opentelemetry.io/otel* modules allowed off
// the release train, each with the reason (empty: every module is on it).
var otelVersionExceptions = map[string]string{}

// otelRequire matches a go.mod requirement of an OpenTelemetry Go module
// (go.opentelemetry.io/otel and its submodules; contrib, proto and auto
// are released on their own and not matched).
var otelRequire = regexp.MustCompile(`(?m)^\s*(?:require\s+)?(go\.opentelemetry\.io/otel(?:/\S+)?)\s+v(\d+)\.(\d+)\.(\d+)\b`)

// OpenTelemetry Go releases its modules together: stable ones as v1.N.P,
// experimental ones as v0.(N+22).P in the same release. Modules of
// different releases share internal packages that drift apart (a mixed
// set built, but exported with the older exporter's behaviour), so every
// otel module go.mod requires must come from one release.
func TestGoMod_OpenTelemetryModulesAreOnOneRelease(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	type release struct{ minor, patch int }
	releases := map[release][]string{}
	for _, m := range otelRequire.FindAllStringSubmatch(string(data), -1) {
		if _, ok := otelVersionExceptions[m[1]]; ok {
			continue
		}
		major, _ := strconv.Atoi(m[2])
		minor, _ := strconv.Atoi(m[3])
		patch, _ := strconv.Atoi(m[4])
		switch major {
		case 1:
		case 0:
			minor -= 22
		default:
			t.Errorf("%s: major version %d", m[1], major)
			continue
		}
		r := release{minor, patch}
		releases[r] = append(releases[r], m[1]+" v"+m[2]+"."+m[3]+"."+m[4])
	}
	if len(releases) == 0 {
		t.Fatal("go.mod requires no go.opentelemetry.io/otel module")
	}
	if len(releases) > 1 {
		t.Errorf("go.opentelemetry.io/otel modules of %d releases (v1.N ↔ v0.N+22); move them to one (go get …@v1.N.0 …@v0.N+22.0) or add an exception with its reason:", len(releases))
		for r, mods := range releases {
			t.Errorf("  release v1.%d.%d: %v", r.minor, r.patch, mods)
		}
	}
}
