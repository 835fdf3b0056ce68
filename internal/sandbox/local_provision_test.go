package sandbox

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestLocal_FailedFirstProvisioningLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	if _, err := l.Provision(t.Context(), Spec{UID: "sbx-bad", PublicKey: "ssh-ed25519 not-a-key"}); !errors.Is(err, ErrBadPublicKey) {
		t.Fatalf("provision with a bad key: %v", err)
	}
	if l.Holds("sbx-bad") {
		t.Fatal("a sandbox that never ran left its directory")
	}
	if _, err := os.Stat(l.Workdir("sbx-bad")); !os.IsNotExist(err) {
		t.Fatalf("workdir left behind: %v", err)
	}
}

// A sandbox's commands run under its CPU-time and memory limits: the
// shell a command runs in reports them.
func TestLocal_CommandsRunUnderTheSandboxsCPUAndMemoryLimits(t *testing.T) {
	t.Parallel()
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	_, c := provisionAndDial(t, l, Spec{UID: "sbx-limits", CPU: 1.5, MemoryMB: 256, TimeLimit: time.Minute})
	out, err := runCmd(t, c, "ulimit -t; ulimit -v")
	if f := strings.Fields(out); err != nil || len(f) != 2 || f[0] != "90" || f[1] != "262144" {
		t.Fatalf("limits seen by a command: %q %v (want 90 CPU seconds, 262144 KiB)", out, err)
	}
}

// Commands start from the provider's Env when it has one (a sandbox
// agent's image environment), with HOME and PWD still the workdir.
func TestLocal_CommandsStartFromTheProvidersEnv(t *testing.T) {
	t.Parallel()
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}, Env: []string{"PATH=/usr/bin:/bin", "CUDA_HOME=/opt/cuda", "HOME=/root"}}
	ep, c := provisionAndDial(t, l, Spec{UID: "sbx-env", TimeLimit: time.Minute})
	out, err := runCmd(t, c, `echo "$CUDA_HOME $HOME"`)
	if err != nil || strings.TrimSpace(out) != "/opt/cuda "+ep.Workdir {
		t.Fatalf("environment seen by a command: %q %v", out, err)
	}
}
