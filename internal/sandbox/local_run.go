package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// MaxRunOutput is how much of a run's output is recorded.
const MaxRunOutput = 64 << 10

// defaultCommandLimit bounds a command when the sandbox has no time limit.
const defaultCommandLimit = 30 * time.Minute

// runner executes commands in a working directory under the sandbox's
// limits and records each as a run.
type runner struct {
	work, runs string
	limit      time.Duration
	cpuSeconds int
	memoryKB   int
	cred       *syscall.Credential
	env        []string
	// confine is how commands are confined ("" bwrap path: unconfined).
	confine confinement

	mu      sync.Mutex
	seq     int
	cancels map[int]context.CancelFunc
}

// newRunner continues the run numbering of runs and marks runs a previous
// server left running as killed: their server, and with it their process
// (Pdeathsig), died with the worker that ran them.
func newRunner(work, runs string, spec Spec, cred *syscall.Credential, env []string, confine confinement) *runner {
	limit := spec.TimeLimit
	if limit <= 0 {
		limit = defaultCommandLimit
	}
	cpu := spec.CPU
	if cpu <= 0 {
		cpu = 1
	}
	r := &runner{work: work, runs: runs, limit: limit, cancels: map[int]context.CancelFunc{}, cred: cred, env: env, confine: confine,
		cpuSeconds: int(math.Ceil(cpu * limit.Seconds())), memoryKB: spec.MemoryMB * 1024}
	r.adoptPrior()
	return r
}

// adoptPrior continues numbering after the runs already recorded and
// closes the ones still marked running.
func (r *runner) adoptPrior() {
	prior, err := os.ReadDir(r.runs)
	if err != nil {
		return
	}
	for _, e := range prior {
		var seq int
		if _, err := fmt.Sscanf(e.Name(), "%08d.json", &seq); err != nil || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		r.seq = max(r.seq, seq)
		b, err := os.ReadFile(filepath.Join(r.runs, e.Name()))
		var rec Run
		if err != nil || json.Unmarshal(b, &rec) != nil || rec.Status != RunRunning {
			continue
		}
		if live, err := os.ReadFile(r.outPath(seq)); err == nil {
			rec.Output = string(live)
		}
		end, code := time.Now().UTC(), -1
		rec.Status, rec.EndedAt, rec.ExitCode = RunKilled, &end, &code
		rec.Output += "\n[the worker restarted; this command was killed]\n"
		r.save(rec)
		_ = os.Remove(r.outPath(seq))
	}
}

// limitedShell wraps a command so the shell applies CPU-time, memory,
// process and file-size limits before running it; the command text travels
// as $0, never spliced into the script.
const limitedShell = `ulimit -t %d 2>/dev/null; %s exec /bin/sh -c "$0"`

// confinedLimits are the limits a confined command must get or not run:
// the process count (dash spells it -p, bash -u) and the size of one file
// (512-byte blocks), so a fork bomb or a runaway write stops at once.
const confinedLimits = `{ ulimit -p %[1]d 2>/dev/null || ulimit -u %[1]d 2>/dev/null; } && ulimit -f %[2]d 2>/dev/null ||
{ echo "sandbox: cannot apply the process and file-size limits" >&2; exit 126; };`

// argv is the program and arguments running command under the limits,
// inside bubblewrap when the runner confines; a full working directory
// (over its quota) lets it write no byte to any file.
func (r *runner) argv(command string, full bool) []string {
	limits := ""
	if r.memoryKB > 0 {
		limits = fmt.Sprintf("ulimit -v %d 2>/dev/null;", r.memoryKB)
	}
	if r.confine.bwrap == "" {
		return []string{"/bin/sh", "-c", fmt.Sprintf(limitedShell, r.cpuSeconds, limits), command}
	}
	blocks := max(r.confine.diskQuota/512, 1)
	if full {
		blocks = 0
	}
	limits += fmt.Sprintf(confinedLimits, r.confine.maxProcesses, blocks)
	return confinedArgv(r.confine.bwrap, r.work, []string{"/bin/sh", "-c", fmt.Sprintf(limitedShell, r.cpuSeconds, limits), command})
}

// run executes command, streaming output to the caller, and returns its
// exit code (-1 when killed). accepted is called once the run is recorded,
// so a client told the command started always finds it in the runs.
func (r *runner) run(command string, accepted func(), stdin io.Reader, stdout, stderr io.Writer) int {
	r.mu.Lock()
	r.seq++
	seq := r.seq
	ctx, cancel := context.WithTimeout(context.Background(), r.limit)
	r.cancels[seq] = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.cancels, seq)
		r.mu.Unlock()
		cancel()
	}()

	rec := Run{Seq: seq, Command: command, Status: RunRunning, StartedAt: time.Now().UTC()}
	r.save(rec)
	accepted()
	// Over quota a command may still delete files, but not write a byte.
	full := overQuota(r.work, r.confine.diskQuota)
	var quotaKilled atomic.Bool
	if !full {
		go watchQuota(ctx, r.work, r.confine.diskQuota, func() { quotaKilled.Store(true); cancel() })
	}
	argv := r.argv(command, full)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = r.work
	cmd.Env = r.commandEnv()
	// Pdeathsig: a command must not outlive the server that records it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: r.cred}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	// Output streams to a file while the command runs, so the terminal
	// shows a running command's progress.
	live, _ := os.Create(r.outPath(seq))
	if live != nil {
		defer func() { _ = live.Close(); _ = os.Remove(r.outPath(seq)) }()
	}
	out := capped{live: live}
	if full {
		note := fmt.Sprintf("[the working directory holds more than its %d byte quota: this command cannot write to files; delete some]\n", r.confine.diskQuota)
		_, _ = out.Write([]byte(note)) // capped never fails
		_, _ = io.WriteString(stderr, note)
	}
	cmd.Stdin = stdin
	cmd.Stdout = io.MultiWriter(stdout, &out)
	cmd.Stderr = io.MultiWriter(stderr, &out)
	err := cmd.Run()

	code := 0
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		code, rec.Status = -1, RunKilled
	case errors.As(err, &exit):
		code, rec.Status = exit.ExitCode(), RunExited
	case err != nil:
		code, rec.Status = 127, RunExited
		_, _ = out.Write([]byte(err.Error())) // capped never fails
	default:
		rec.Status = RunExited
	}
	if quotaKilled.Load() {
		note := fmt.Sprintf("\n[the working directory went over its %d byte quota; this command was killed]\n", r.confine.diskQuota)
		_, _ = out.Write([]byte(note)) // capped never fails
		_, _ = io.WriteString(stderr, note)
	}
	end := time.Now().UTC()
	rec.EndedAt, rec.ExitCode = &end, &code
	rec.Output, rec.Truncated = out.buf.String(), out.truncated
	r.save(rec)
	return code
}

// outPath is where a running command's output streams.
func (r *runner) outPath(seq int) string { return filepath.Join(r.runs, fmt.Sprintf("%08d.out", seq)) }

// save writes a run record atomically.
func (r *runner) save(rec Run) {
	b, _ := json.Marshal(rec)
	name := filepath.Join(r.runs, fmt.Sprintf("%08d.json", rec.Seq))
	tmp := name + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, name)
	}
}

// killAll kills every running command.
func (r *runner) killAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cancels {
		c()
	}
}

// capped keeps the first MaxRunOutput bytes written to it, copying them to
// live when set.
type capped struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	live      *os.File
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := p
	if room := MaxRunOutput - c.buf.Len(); len(p) > room {
		keep, c.truncated = p[:max(room, 0)], true
	}
	c.buf.Write(keep)
	if c.live != nil && len(keep) > 0 {
		_, _ = c.live.Write(keep)
	}
	return len(p), nil
}

// commandEnv is a command's environment: the runner's base (or a minimal
// PATH and locale), with HOME and PWD set to the working directory.
func (r *runner) commandEnv() []string {
	base := r.env
	if base == nil {
		base = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
	}
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PWD=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+r.work, "PWD="+r.work)
}
