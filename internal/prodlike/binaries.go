package prodlike

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Binaries are the Temporal programs a stack runs, built from the
// go.temporal.io/server module that go.mod pins (its tool directives).
type Binaries struct {
	// Server is temporal-server (go.temporal.io/server/cmd/server).
	Server string
	// SQLTool is temporal-sql-tool (go.temporal.io/server/cmd/tools/sql).
	SQLTool string
}

// BuildTemporal builds the Temporal server and its SQL tool into dir,
// named by the server module's version so a later call with the same
// go.mod reuses them. moduleDir is the repository root (where go.mod is).
func BuildTemporal(ctx context.Context, moduleDir, dir string) (Binaries, error) {
	version, err := goOutput(ctx, moduleDir, "list", "-m", "-f", "{{.Version}}", "go.temporal.io/server")
	if err != nil {
		return Binaries{}, err
	}
	b := Binaries{
		Server:  filepath.Join(dir, "temporal-server-"+version),
		SQLTool: filepath.Join(dir, "temporal-sql-tool-"+version),
	}
	for bin, pkg := range map[string]string{b.Server: "go.temporal.io/server/cmd/server", b.SQLTool: "go.temporal.io/server/cmd/tools/sql"} {
		if err := goBuild(ctx, moduleDir, bin, pkg); err != nil {
			return Binaries{}, err
		}
	}
	return b, nil
}

// goBuild builds pkg into out unless out already exists.
func goBuild(ctx context.Context, moduleDir, out, pkg string) error {
	if _, err := os.Stat(out); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp := out + ".building"
	if _, err := goOutput(ctx, moduleDir, "build", "-o", tmp, pkg); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

func goOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("prodlike: go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}
