package sandbox

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLocal_RootWorkerRunsCommandsAsAnUnprivilegedUserConfinedToTheWorkdir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("privileges are dropped only when the worker runs as root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no nobody user: %v", err)
	}
	dataDir := t.TempDir()
	l := &Local{Root: filepath.Join(dataDir, "sandboxes"), servers: map[string]*server{}}
	if err := l.RunAs("nobody"); err != nil {
		t.Fatal(err)
	}
	if l.RunsAs() != "nobody" {
		t.Fatalf("RunsAs = %q", l.RunsAs())
	}
	ctx := context.Background()
	key, pub := newKey(t)
	ep, err := l.Provision(ctx, Spec{UID: "sbx-nobody", PublicKey: pub, TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Destroy(ctx, "sbx-nobody"); _ = os.Remove(filepath.Dir(l.Workdir("sbx-nobody"))) })
	if strings.HasPrefix(ep.Workdir, dataDir) {
		t.Fatalf("workdir %s is inside the data dir", ep.Workdir)
	}
	st, err := os.Stat(ep.Workdir)
	if err != nil || st.Sys().(*syscall.Stat_t).Uid == 0 || st.Mode().Perm() != 0o700 {
		t.Fatalf("workdir %s: %v %v", ep.Workdir, st, err)
	}
	c, err := dial(ep, key)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }() // test cleanup: a close error fails nothing
	out, err := runCmd(t, c, "id -u")
	if err != nil || strings.TrimSpace(out) != nobody.Uid || strings.TrimSpace(out) == "0" {
		t.Fatalf("id -u = %q %v, want %s", out, err, nobody.Uid)
	}
	if out, err := runCmd(t, c, "echo mine > mine.txt && pwd"); err != nil || strings.TrimSpace(out) != ep.Workdir {
		t.Fatalf("write in the workdir: %q %v", out, err)
	}
	if got, err := l.ReadFile("sbx-nobody", "mine.txt", 64); err != nil || string(got) != "mine\n" {
		t.Fatalf("read back %q %v", got, err)
	}
	// Outside its workdir a command writes at most into its private /tmp,
	// which the host never sees.
	for _, target := range []string{filepath.Join(dataDir, "escape"), filepath.Join(l.Root, "sbx-nobody", "runs", "00000099.json"),
		filepath.Join(filepath.Dir(ep.Workdir), "sibling")} {
		_, _ = runCmd(t, c, "echo x > "+target)
		if _, err := os.Stat(target); !os.IsNotExist(err) {
			t.Errorf("%s exists after the write from the sandbox: %v", target, err)
		}
	}
	other := filepath.Join(filepath.Dir(ep.Workdir), "sbx-other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(other) })
	if out, _ := runCmd(t, c, "ls "+filepath.Dir(ep.Workdir)); strings.Contains(out, "sbx-other") {
		t.Errorf("listed another sandbox in the work root: %q", out)
	}
	runs, _ := l.Runs("sbx-nobody")
	if len(runs) == 0 || !strings.Contains(runs[0].Output, nobody.Uid) {
		t.Fatalf("runs %+v", runs)
	}
}

func TestLocal_RunAsRootOrUnknownUser(t *testing.T) {
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	if err := l.RunAs("root"); err != nil || l.RunsAs() != "" {
		t.Fatalf("root: %q %v", l.RunsAs(), err)
	}
	if os.Geteuid() != 0 {
		if err := l.RunAs("no-such-user-here"); err != nil || l.RunsAs() != "" {
			t.Fatalf("a non-root worker must ignore run-as: %q %v", l.RunsAs(), err)
		}
		return
	}
	if err := l.RunAs("no-such-user-here"); err == nil {
		t.Fatal("an unknown run-as user was accepted")
	}
	if err := l.RunAs("65534:65534"); err != nil || l.RunsAs() != "65534:65534" {
		t.Fatalf("uid:gid: %q %v", l.RunsAs(), err)
	}
}
