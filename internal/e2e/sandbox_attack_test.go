package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestSandbox_AttacksFromInsideALocalSandboxReachNoWorkerSecret plays an
// agent that got a local sandbox and SSHes in to become operator: from
// inside, it reads every file of the data directory (the dev credentials
// with the operator token, the databases, the blobs), another sandbox's
// working directory, and the worker's environment (its database URL and
// provider keys), through /proc by the worker's pid, pid 1 and $PPID. Each
// attempt must fail: when a root worker drops to a run-as user, when
// commands keep a root worker's user (GATEHOUSE_SANDBOX_RUN_AS=root), and
// when the worker is not root (as `gatehouse dev` usually runs), so
// commands run as the user owning the data directory. The data directory
// sits under a traversable parent, as a checkout's .gatehouse or
// /var/lib/gatehouse do.
func TestSandbox_AttacksFromInsideALocalSandboxReachNoWorkerSecret(t *testing.T) {
	for _, tc := range []struct {
		name, runAs string
		workerUID   int
	}{
		{"RootWorkerDropsToNobody", "nobody", 0},
		{"CommandsKeepTheRootWorkersUser", "root", 0},
		{"NonRootWorker", "root", 4242},
	} {
		t.Run(tc.name, func(t *testing.T) { attackFromSandbox(t, tc.runAs, tc.workerUID) })
	}
}

// attackFromSandbox runs every attack against a stack whose worker, a
// separate process holding a secret in its environment, runs sandbox
// commands as runAs; a workerUID other than 0 runs that worker as this
// uid, owning the data directory (the API, in this process, computes
// workdirs as a worker keeping its user does, from runAs root).
func attackFromSandbox(t *testing.T, runAs string, workerUID int) {
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	parent, err := os.MkdirTemp("", "gatehouse-attack-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(parent, ".gatehouse")
	env := map[string]string{"GATEHOUSE_DATABASE_URL": dbURL, "GATEHOUSE_SANDBOX_RUN_AS": runAs}
	s := StartStack(t, StackOptions{DataDir: dataDir, NoWorker: true, Env: env})
	for path, want := range map[string]os.FileMode{dataDir: 0o700, filepath.Join(dataDir, "dev-credentials.json"): 0o600} {
		if st, err := os.Stat(path); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	secret := "worker-secret-" + randomMarker(t)
	workerEnv := s.WorkerEnv(dbURL)
	workerEnv["GATEHOUSE_ATTACK_TEST_SECRET"] = secret
	var worker *Process
	if workerUID == 0 {
		worker = StartRoleProcess(t, "worker", workerEnv)
	} else {
		worker = startWorkerAs(t, workerEnv, parent, workerUID, dataDir)
	}

	op := connectResearch(t, s, s.OperatorToken)
	pid := str(dig(op.must("project", map[string]any{"action": "create", "name": uniq("e2e-sandbox-attack")}), "project", "id"))
	agent := connectResearch(t, s, s.APIKey)
	exp := str(agent.must("experiment.create", map[string]any{"project_id": pid, "name": "attack"})["experiment_id"])
	keyA, pubA := sandboxKey(t)
	keyB, pubB := sandboxKey(t)
	a := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pubA, "time_limit": 600})
	b := agent.must("sandbox.request", map[string]any{"project_id": pid, "experiment_id": exp, "public_key": pubB, "time_limit": 600, "additional": true})
	t.Cleanup(func() {
		agent.call("sandbox.release", map[string]any{"project_id": pid, "experiment_id": exp, "confirm_retained": true})
	})
	inA, inB := sandboxShell(t, a, keyA), sandboxShell(t, b, keyB)

	// Sandbox B holds a secret and has a pulled output, so the blob store
	// is not empty.
	neighbour := "neighbour-secret-" + randomMarker(t)
	if out, err := inB(fmt.Sprintf("echo %s > secret.txt && mkdir -p results && echo pulled > results/out.txt && echo ok", neighbour)); err != nil || strings.TrimSpace(out) != "ok" {
		t.Fatalf("sandbox B: %q %v", out, err)
	}
	agent.must("sandbox.pull_outputs", map[string]any{"project_id": pid, "sandbox_uid": str(b["sandbox_uid"]), "paths": []string{"results/out.txt"}})
	if out, err := inA("echo mine > mine.txt && cat mine.txt"); err != nil || out != "mine\n" {
		t.Fatalf("sandbox A cannot use its own workdir: %q %v", out, err)
	}

	targets := dataDirFiles(t, dataDir)
	workA := str(a["workdir"])
	creds := filepath.Join(dataDir, "dev-credentials.json")
	if rel, err := filepath.Rel(workA, creds); err == nil {
		targets[rel] = targets[creds]
	}
	for path, head := range targets {
		t.Run("read "+path, func(t *testing.T) {
			if out, _ := inA("head -c 64 '" + path + "' 2>/dev/null"); out == head {
				t.Errorf("the sandbox read %s: %q", path, out)
			}
		})
	}
	t.Run("list the data directory", func(t *testing.T) {
		if out, _ := inA("ls -a '" + dataDir + "' '" + filepath.Join(dataDir, "sandboxes") + "' 2>/dev/null"); strings.Contains(out, "dev-credentials.json") || strings.Contains(out, str(b["sandbox_uid"])) {
			t.Errorf("the sandbox listed the data directory: %q", out)
		}
	})
	t.Run("read another sandbox's workdir", func(t *testing.T) {
		if out, _ := inA("cat '" + filepath.Join(str(b["workdir"]), "secret.txt") + "' 2>/dev/null"); strings.Contains(out, neighbour) {
			t.Errorf("sandbox A read sandbox B's file: %q", out)
		}
	})
	for _, environ := range []string{fmt.Sprintf("/proc/%d/environ", worker.cmd.Process.Pid), "/proc/1/environ", "/proc/$PPID/environ", "/proc/[0-9]*/environ"} {
		t.Run("read "+environ, func(t *testing.T) {
			if out, _ := inA("for f in " + environ + "; do tr '\\0' '\\n' < $f; done 2>/dev/null"); strings.Contains(out, secret) || strings.Contains(out, dbURL) {
				t.Errorf("the sandbox read the worker's environment from %s", environ)
			}
		})
	}
}

// startWorkerAs runs a worker process as uid (gid the same), which then
// owns dataDir: a copy of the test binary in binDir, since the build
// directory is private to root.
func startWorkerAs(t *testing.T, env map[string]string, binDir string, uid int, dataDir string) *Process {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("starting a worker as another user needs root")
	}
	bin := filepath.Join(binDir, "e2e-worker.test")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	if err := filepath.WalkDir(dataDir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	}); err != nil {
		t.Fatal(err)
	}
	return startRoleBinary(t, bin, "worker", env, func(cmd *exec.Cmd) {
		cmd.Env = append(cmd.Env, "HOME="+binDir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}}
	})
}

// copyExecutable copies src to dst, mode 0755.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// sandboxShell answers a function running one command in the sandbox view
// names over a fresh SSH session, answering its standard output.
func sandboxShell(t *testing.T, view map[string]any, key ssh.Signer) func(string) (string, error) {
	t.Helper()
	c, err := sshDial(view, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return func(command string) (string, error) {
		sess, err := c.NewSession()
		if err != nil {
			return "", err
		}
		defer func() { _ = sess.Close() }()
		out, err := sess.Output(command)
		return string(out), err
	}
}

// dataDirFiles maps each non-empty regular file of the data directory
// (sandbox records aside) to its first 64 bytes, and fails unless the
// credentials, the Temporal database and at least one blob are among them.
func dataDirFiles(t *testing.T, dataDir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	blobs := 0
	err := filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == filepath.Join(dataDir, "sandboxes") {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		head := make([]byte, 64)
		n, _ := f.Read(head)
		if n > 0 {
			files[p] = string(head[:n])
			if strings.HasPrefix(p, filepath.Join(dataDir, "blobs")+string(filepath.Separator)) {
				blobs++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dev-credentials.json", "temporal.db"} {
		if _, ok := files[filepath.Join(dataDir, want)]; !ok {
			t.Fatalf("the data directory has no %s to attack: %v", want, files)
		}
	}
	if blobs == 0 {
		t.Fatalf("the data directory has no blob to attack")
	}
	return files
}

// randomMarker is a random string to look for in what an attack read.
func randomMarker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
