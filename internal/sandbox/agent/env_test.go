package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigFromEnv_ReadsThePodEnvironmentAndRefusesBadValues(t *testing.T) {
	env := map[string]string{EnvUID: "sbx_1", EnvPublicKey: "ssh-ed25519 AAAA k", EnvToken: "t", EnvRoot: "/workspace",
		EnvSSHPort: "2222", EnvPort: "2223", EnvTimeLimit: "900", EnvCPU: "1.5", EnvMemoryMB: "4096"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := ConfigFromEnv(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SSHPort != 2222 || cfg.InspectPort != 2223 || cfg.TimeLimit != 15*time.Minute || cfg.CPU != 1.5 || cfg.MemoryMB != 4096 || cfg.Listen != "" {
		t.Fatalf("config %+v", cfg)
	}
	for k, bad := range map[string]string{EnvSSHPort: "ssh", EnvCPU: "-1", EnvTimeLimit: "1h", EnvToken: ""} {
		was := env[k]
		env[k] = bad
		if _, err := ConfigFromEnv(lookup); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q accepted: %v", k, bad, err)
		}
		env[k] = was
	}
}

func TestInstall_CopiesThisExecutable(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "bin", "gatehouse")
	if err := Install(dest); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	want, _ := os.ReadFile(self)
	got, err := os.ReadFile(dest)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("copied %d bytes of %d: %v", len(got), len(want), err)
	}
	if st, _ := os.Stat(dest); st.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", st.Mode())
	}
}

func TestCommandEnv_KeepsTheImagesEnvironmentButNotTheAgents(t *testing.T) {
	got := CommandEnv([]string{"PATH=/opt/conda/bin:/usr/bin", "CUDA_HOME=/usr/local/cuda", EnvToken + "=secret", EnvPublicKey + "=k"})
	if len(got) != 2 || got[0] != "PATH=/opt/conda/bin:/usr/bin" || got[1] != "CUDA_HOME=/usr/local/cuda" {
		t.Fatalf("command environment %v", got)
	}
}
