package deploycheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The image builds with the Go version go.mod names, statically, and runs
// as a non-root user on a distroless base.
func TestDockerfile_StaticNonRootBinary(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	dockerfile := string(data)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goVersion == nil {
		t.Fatal("go.mod has no go line")
	}
	stages := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(dockerfile, -1)
	if len(stages) < 2 {
		t.Fatalf("want a multi-stage build, got %d stage(s)", len(stages))
	}
	// Every base image is pinned by digest; the tag before it names it.
	pinned := regexp.MustCompile(`^([^@\s]+)@sha256:[0-9a-f]{64}$`)
	for i, st := range stages {
		m := pinned.FindStringSubmatch(st[1])
		if m == nil {
			t.Fatalf("stage %d base %q is not pinned by digest (image:tag@sha256:…)", i, st[1])
		}
		stages[i][1] = m[1]
	}
	if want := "golang:" + string(goVersion[1]); stages[0][1] != want {
		t.Errorf("builder stage %q, want %q (go.mod)", stages[0][1], want)
	}
	final := stages[len(stages)-1][1]
	if !strings.HasPrefix(final, "gcr.io/distroless/static") || !strings.HasSuffix(final, ":nonroot") {
		t.Errorf("final stage %q, want distroless/static:nonroot", final)
	}
	for _, want := range []string{"CGO_ENABLED=0", "./cmd/gatehouse", `ENTRYPOINT ["/gatehouse"]`} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
	users := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindAllStringSubmatch(dockerfile, -1)
	if len(users) == 0 || strings.HasPrefix(users[len(users)-1][1], "0") || strings.HasPrefix(users[len(users)-1][1], "root") {
		t.Errorf("final USER is not a non-root user: %v", users)
	}
}
