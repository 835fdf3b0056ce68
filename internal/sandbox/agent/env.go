package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ConfigFromEnv reads an agent's Config from the Pod environment (the Env*
// names); it listens on every interface.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(k string) string { v, _ := lookup(k); return v }
	cfg := Config{UID: get(EnvUID), PublicKey: get(EnvPublicKey), Token: get(EnvToken), TokenSHA256: get(EnvTokenSHA256), Root: get(EnvRoot)}
	if cfg.UID == "" || cfg.PublicKey == "" || cfg.Token == "" && cfg.TokenSHA256 == "" || cfg.Root == "" {
		return cfg, fmt.Errorf("sandbox agent: %s, %s, %s (or %s) and %s are required", EnvUID, EnvPublicKey, EnvTokenSHA256, EnvToken, EnvRoot)
	}
	ints := map[string]*int{EnvSSHPort: &cfg.SSHPort, EnvPort: &cfg.InspectPort, EnvMemoryMB: &cfg.MemoryMB}
	for name, dst := range ints {
		if v := get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return cfg, fmt.Errorf("sandbox agent: %s=%q is not a non-negative integer", name, v)
			}
			*dst = n
		}
	}
	if v := get(EnvTimeLimit); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("sandbox agent: %s=%q is not a non-negative integer", EnvTimeLimit, v)
		}
		cfg.TimeLimit = time.Duration(n) * time.Second
	}
	if v := get(EnvCPU); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return cfg, fmt.Errorf("sandbox agent: %s=%q is not a non-negative number", EnvCPU, v)
		}
		cfg.CPU = f
	}
	return cfg, nil
}

// CommandEnv is the environment sandbox commands start from: the agent's
// own (the sandbox image's PATH, CUDA and library settings) without the
// agent's GATEHOUSE_SANDBOX_* variables, so a command never sees the
// inspection token.
func CommandEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "GATEHOUSE_SANDBOX_") {
			out = append(out, kv)
		}
	}
	return out
}

// Install copies the running executable to dest (mode 0755), through a
// temporary file renamed into place, so a sandbox image without this
// binary can run it from a shared volume.
func Install(dest string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read only: a close error loses nothing
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".gatehouse-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // best effort; a no-op after a successful rename
	if _, err := io.Copy(tmp, src); err != nil {
		_ = tmp.Close() // the copy error is the one to report
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		_ = tmp.Close() // the chmod error is the one to report
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}
