package agent

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/inspect"
)

// The agent a kubernetes sandbox Pod runs: commands over SSH are recorded
// as runs, and the inspection server answers them, the files and their
// digests only to the bearer of the sandbox's token, with typed path
// errors.
func TestAgent_RecordsCommandsAndAnswersInspectionsToItsTokenOnly(t *testing.T) {
	t.Parallel()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Start(Config{UID: "sbx_agent1", PublicKey: string(ssh.MarshalAuthorizedKey(key.PublicKey())), Token: "tok-1",
		Root: t.TempDir(), Listen: "127.0.0.1", TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close() }() // test cleanup: a close error fails nothing
	addr := net.JoinHostPort(a.SSH.Host, fmt.Sprint(a.SSH.Port))
	c, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{User: sandbox.LocalUser, Auth: []ssh.AuthMethod{ssh.PublicKeys(key)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := c.NewSession()
	out, err := sess.CombinedOutput("echo result > out.txt && echo done")
	_ = sess.Close()
	_ = c.Close()
	if err != nil || strings.TrimSpace(string(out)) != "done" {
		t.Fatalf("ssh: %q %v", out, err)
	}

	ctx := context.Background()
	cl := Client{URL: a.InspectURL, Token: "tok-1"}
	runs, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: inspect.OpRuns, Wait: 5 * time.Second})
	if err != nil || len(runs.Runs) != 1 || runs.Runs[0].ExitCode == nil || *runs.Runs[0].ExitCode != 0 || !strings.Contains(runs.Runs[0].Output, "done") {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	files, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: inspect.OpFiles, MaxFiles: 10})
	if err != nil || len(files.Files) != 1 || files.Files[0] != "out.txt" {
		t.Fatalf("files: %+v %v", files, err)
	}
	chunk, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: inspect.OpRead, Path: "out.txt", Length: 3})
	if err != nil || string(chunk.Data) != "res" || chunk.Size != 7 {
		t.Fatalf("chunk: %+v %v", chunk, err)
	}
	sum, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: inspect.OpDigest, Path: "out.txt", MaxBytes: 100})
	want := sha256.Sum256([]byte("result\n"))
	if err != nil || sum.SHA256 != hex.EncodeToString(want[:]) || sum.Size != 7 {
		t.Fatalf("digest: %+v %v", sum, err)
	}
	if _, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: inspect.OpRead, Path: "../../etc/passwd", Length: 10}); !errors.Is(err, sandbox.ErrPathOutside) {
		t.Fatalf("a path outside: %v", err)
	}
	if _, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: inspect.OpRead, Path: "nope", Length: 10}); !errors.Is(err, sandbox.ErrNotFound) {
		t.Fatalf("a missing file: %v", err)
	}
	if _, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_other", Op: inspect.OpFiles}); !errors.Is(err, sandbox.ErrNotFound) {
		t.Fatalf("another sandbox's uid: %v", err)
	}
	if _, err := cl.Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: "shell"}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("an unknown operation: %v", err)
	}
	for _, tok := range []string{"", "tok-2"} {
		if _, err := (Client{URL: a.InspectURL, Token: tok}).Inspect(ctx, inspect.Request{UID: "sbx_agent1", Op: inspect.OpFiles}); err == nil ||
			!strings.Contains(err.Error(), "bearer token") {
			t.Fatalf("token %q: %v", tok, err)
		}
	}

	// Closing stops SSH; the runs stay readable for the record.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		_ = conn.Close()
		t.Fatal("SSH still served after Close")
	}
	if kept, err := a.local.Runs("sbx_agent1"); err != nil || len(kept) != 1 {
		t.Fatalf("runs after Close: %+v %v", kept, err)
	}
}

// A requested SSH port that is taken fails the start: the Pod advertises
// its ports, so the agent must not move.
func TestAgent_TakenSSHPortFailsTheStart(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // test cleanup: a close error fails nothing
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key, _ := ssh.NewSignerFromKey(priv)
	_, err = Start(Config{UID: "sbx_agent2", PublicKey: string(ssh.MarshalAuthorizedKey(key.PublicKey())), Token: "t", Root: t.TempDir(),
		Listen: "127.0.0.1", SSHPort: ln.Addr().(*net.TCPAddr).Port})
	if err == nil || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("start on a taken port: %v", err)
	}
}
