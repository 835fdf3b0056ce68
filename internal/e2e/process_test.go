package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// childRoleEnv makes the test binary run a Gatehouse role instead of tests,
// so fault-injection tests get real processes they can SIGKILL without a
// second build of the Temporal-linked binary.
const childRoleEnv = "GATEHOUSE_E2E_CHILD_ROLE"

// runChildRole is called from TestMain; it never returns in a child.
func runChildRole() {
	role := os.Getenv(childRoleEnv)
	if role == "" {
		return
	}
	if role == baselineServerRole {
		ctx, stop := signalContext()
		err := serveBaselineProcess(ctx)
		stop()
		exitChild(err)
	}
	cfg, err := config.FromEnv()
	if err == nil {
		ctx, stop := signalContext()
		defer stop()
		switch role {
		case "worker":
			err = app.Worker(ctx, cfg)
		case "api":
			err = app.API(ctx, cfg)
		case "migrate":
			err = app.Migrate(ctx, cfg)
		case devServerRole:
			err = serveDevProcess(ctx, cfg)
		default:
			err = fmt.Errorf("unknown child role %q", role)
		}
	}
	exitChild(err)
}

// exitChild ends a child role's process: status 1 with err, else 0.
func exitChild(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Process is a Gatehouse role running as a child process.
type Process struct {
	cmd    *exec.Cmd
	out    *syncBuffer
	waited chan struct{}
}

// StartRoleProcess runs role ("worker" or "api") in a child process with the
// given GATEHOUSE_* environment (GATEHOUSE_DATABASE_URL must be PostgreSQL:
// production roles refuse SQLite). It is killed when the test ends.
func StartRoleProcess(t testing.TB, role string, env map[string]string) *Process {
	t.Helper()
	return startRoleBinary(t, os.Args[0], role, env, nil)
}

// startRoleBinary runs role from bin (this test binary or a copy of it);
// prepare, when set, adjusts the command before it starts (credentials,
// extra environment).
func startRoleBinary(t testing.TB, bin, role string, env map[string]string, prepare func(*exec.Cmd)) *Process {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), childRoleEnv+"="+role)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if prepare != nil {
		prepare(cmd)
	}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if log := childLog(role); log != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(out, log), io.MultiWriter(out, log)
		t.Cleanup(func() { _ = log.Close() })
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: cmd, out: out, waited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.waited) }()
	t.Cleanup(func() { p.Kill(); p.logOnFailure(t) })
	return p
}

// workerlessStack starts a stack on its own schema of the test PostgreSQL
// with no worker of its own, for tests that run workers as processes
// (WorkerEnv); without PostgreSQL the test is skipped.
func workerlessStack(t *testing.T) (*Stack, string) {
	t.Helper()
	dbURL := modelstest.SchemaURL(t)
	if dbURL == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	return StartStack(t, StackOptions{NoWorker: true, Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}}), dbURL
}

// WorkerEnv is the environment for a worker process joining stack s, on
// the PostgreSQL database dbURL that the stack also uses.
func (s *Stack) WorkerEnv(dbURL string) map[string]string {
	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = v
	}
	env["GATEHOUSE_TEMPORAL_ADDRESS"] = s.TemporalAddr
	env["GATEHOUSE_DATABASE_URL"] = dbURL
	env["GATEHOUSE_BLOB_DIR"] = s.BlobDir()
	env["GATEHOUSE_LOG_LEVEL"] = "warn"
	return env
}

// Kill sends SIGKILL (no graceful stop) and waits for the process to exit.
func (p *Process) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.waited:
	case <-time.After(10 * time.Second):
	}
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.waited:
		return true
	default:
		return false
	}
}

// awaitLine waits up to limit for the process to print a line starting
// with prefix and returns the rest of that line; "" if the process exited
// first.
func (p *Process) awaitLine(t testing.TB, prefix string, limit time.Duration) string {
	t.Helper()
	var rest string
	waitFor(t, limit, func() bool {
		if _, after, ok := strings.Cut(p.Output(), prefix); ok {
			if line, _, whole := strings.Cut(after, "\n"); whole {
				rest = line
			}
		}
		return rest != "" || p.Exited()
	})
	return rest
}

// Output is what the process printed so far.
func (p *Process) Output() string { return p.out.String() }

func (p *Process) logOnFailure(t testing.TB) {
	if t.Failed() {
		t.Logf("child process output:\n%s", p.Output())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func signalContext() (context.Context, context.CancelFunc) {
	return signalNotifyContext(context.Background())
}
