package sandbox

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// newKey returns a fresh ed25519 signer and its authorized_keys line.
func newKey(t *testing.T) (ssh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, string(ssh.MarshalAuthorizedKey(s.PublicKey()))
}

func dial(ep Endpoint, key ssh.Signer) (*ssh.Client, error) {
	return ssh.Dial("tcp", net.JoinHostPort(ep.Host, fmt.Sprint(ep.Port)), &ssh.ClientConfig{User: ep.User,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(key)}, HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
}

// provisionAndDial provisions spec (with a fresh key) on l, destroys it
// when the test ends, and answers its endpoint and a connected client.
func provisionAndDial(t *testing.T, l *Local, spec Spec) (Endpoint, *ssh.Client) {
	t.Helper()
	key, pub := newKey(t)
	spec.PublicKey = pub
	ep, err := l.Provision(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Destroy(context.Background(), spec.UID) })
	c, err := dial(ep, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return ep, c
}

func runCmd(t *testing.T, c *ssh.Client, cmd string) (string, error) {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sess.Close() }() // test cleanup: a close error fails nothing
	out, err := sess.CombinedOutput(cmd)
	return string(out), err
}

func TestLocal_OnlyItsOwnKeyRunsRecordedCommandsInItsWorkdir(t *testing.T) {
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	ctx := context.Background()
	keyA, pubA := newKey(t)
	keyB, pubB := newKey(t)
	a, err := l.Provision(ctx, Spec{UID: "sbx-a", PublicKey: pubA, CPU: 1, MemoryMB: 512, TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Provision(ctx, Spec{UID: "sbx-b", PublicKey: pubB, TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Destroy(ctx, "sbx-a"); _ = l.Destroy(ctx, "sbx-b") })
	if again, _ := l.Provision(ctx, Spec{UID: "sbx-a", PublicKey: pubA}); again != a {
		t.Fatalf("provision is not idempotent: %v then %v", a, again)
	}
	if a.Port == b.Port || a.Host != "127.0.0.1" {
		t.Fatalf("endpoints %v %v", a, b)
	}
	if _, err := dial(a, keyB); err == nil {
		t.Fatal("sandbox a accepted sandbox b's key")
	}
	c, err := dial(a, keyA)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }() // test cleanup: a close error fails nothing
	out, err := runCmd(t, c, "echo hello > result.txt && pwd && cat result.txt")
	if err != nil || !strings.Contains(out, "hello") || !strings.Contains(out, l.Workdir("sbx-a")) {
		t.Fatalf("run: %q %v", out, err)
	}
	if _, err := runCmd(t, c, "exit 3"); err == nil {
		t.Fatal("exit 3 reported success")
	}
	runs, err := l.Runs("sbx-a")
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %v %v", runs, err)
	}
	if runs[0].Status != RunExited || *runs[0].ExitCode != 0 || !strings.Contains(runs[0].Output, "hello") || *runs[1].ExitCode != 3 {
		t.Fatalf("runs %+v", runs)
	}
	got, err := l.ReadFile("sbx-a", "result.txt", 1024)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("read %q %v", got, err)
	}
	if files, _ := l.Files("sbx-a", 10); len(files) != 1 || files[0] != "result.txt" {
		t.Fatalf("files %v", files)
	}
	// A running command's output is visible before it ends.
	live, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Start("echo started-long; sleep 30"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runs, _ = l.Runs("sbx-a")
		if len(runs) == 3 && runs[2].Status == RunRunning && strings.Contains(runs[2].Output, "started-long") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("running output never showed: %+v", runs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := l.Destroy(ctx, "sbx-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", net.JoinHostPort(a.Host, fmt.Sprint(a.Port)), time.Second); err == nil {
		t.Fatal("port still open after destroy")
	}
	if _, err := os.Stat(l.Workdir("sbx-a")); !os.IsNotExist(err) {
		t.Fatalf("workdir survived destroy: %v", err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for runs, _ = l.Runs("sbx-a"); runs[2].Status != RunKilled; runs, _ = l.Runs("sbx-a") {
		if time.Now().After(deadline) {
			t.Fatalf("destroy did not kill the running command: %+v", runs[2])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestLocal_ResolveRefusesPathsLeavingTheWorkdir(t *testing.T) {
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	work := l.Workdir("sbx")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(l.Root, "secret")
	_ = os.WriteFile(secret, []byte("x"), 0o600)
	_ = os.WriteFile(filepath.Join(work, "ok.txt"), []byte("ok"), 0o600)
	_ = os.Symlink(secret, filepath.Join(work, "link"))
	for _, p := range []string{"../secret", "/etc/passwd", "a/../../secret", "link", ".."} {
		if _, err := l.Resolve("sbx", p); !errors.Is(err, ErrPathOutside) {
			t.Errorf("Resolve(%q) = %v, want ErrPathOutside", p, err)
		}
	}
	if _, err := l.Resolve("../x", "ok.txt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("bad uid accepted: %v", err)
	}
	if p, err := l.Resolve("sbx", "./ok.txt"); err != nil || filepath.Base(p) != "ok.txt" {
		t.Errorf("Resolve(ok) = %q %v", p, err)
	}
}

func TestLocal_CommandOverTimeLimitIsKilled(t *testing.T) {
	l := &Local{Root: t.TempDir(), servers: map[string]*server{}}
	_, c := provisionAndDial(t, l, Spec{UID: "slow", TimeLimit: 500 * time.Millisecond})
	start := time.Now()
	_, _ = runCmd(t, c, "sleep 20")
	runs, _ := l.Runs("slow")
	if time.Since(start) > 10*time.Second || len(runs) != 1 || runs[0].Status != RunKilled {
		t.Fatalf("after %v runs %+v", time.Since(start), runs)
	}
}

// The read itself is confined, not only the check before it: a symlink
// that a sandbox command swaps in after Resolve still cannot lead out.
func TestReadBeneath_RefusesSymlinksOutAtOpenTime(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("fine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if b, err := readBeneath(dir, "ok.txt", 100); err != nil || string(b) != "fine" {
		t.Fatalf("a file inside: %q %v", b, err)
	}
	for _, rel := range []string{"leak", filepath.Join("out", "secret"), filepath.Join("..", filepath.Base(outside), "secret")} {
		if b, err := readBeneath(dir, rel, 100); !errors.Is(err, ErrPathOutside) {
			t.Errorf("%s: read %q, err %v; want ErrPathOutside", rel, b, err)
		}
	}
	if _, err := readBeneath(dir, "ok.txt", 2); err == nil {
		t.Error("a file over the limit must be refused")
	}
}
