package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunnerCommand_TakesItsKeyFromTheEnvironmentOrAFileNeverArgv(t *testing.T) {
	t.Setenv(runnerKeyEnv, "")
	cmd := newRunnerCommand()
	cmd.SetArgs([]string{"--server", "http://127.0.0.1:1", "--agent-key", "mk_secret_on_argv", "--", "true"})
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "not accepted") {
		t.Fatalf("a key on argv must be refused, got %v", err)
	}
	if _, err := runnerKey(""); err == nil {
		t.Fatal("no key anywhere must be an error")
	}
	t.Setenv(runnerKeyEnv, "mk_from_env")
	if k, err := runnerKey(""); err != nil || k != "mk_from_env" {
		t.Fatalf("env key: %q %v", k, err)
	}
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte("mk_from_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := runnerKey(file); err != nil || k != "mk_from_file" {
		t.Fatalf("file key: %q %v", k, err)
	}
}
