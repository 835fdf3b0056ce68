package prodlike

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Command says how to run one program: path, arguments, extra environment.
type Command struct {
	Path string
	Args []string
	// Env is added to the parent's environment (later entries win).
	Env []string
}

// Proc is one child process of a stack, its output appended to a log file.
// It can be killed and started again with the same command.
type Proc struct {
	// Name says what the process is ("api-0", "worker-1", "temporal").
	Name string
	// Log is the file the process writes its output to.
	Log string

	command Command
	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
}

func startProc(name, logPath string, c Command, extraEnv []string) (*Proc, error) {
	c.Env = append(append([]string{}, c.Env...), extraEnv...)
	p := &Proc{Name: name, Log: logPath, command: c}
	return p, p.Start()
}

// Start runs the command again; an error if it is still running.
func (p *Proc) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !p.exited() {
		return fmt.Errorf("prodlike: %s is running", p.Name)
	}
	logf, err := os.OpenFile(p.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.command.Path, p.command.Args...)
	cmd.Env = append(os.Environ(), p.command.Env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// A process group of its own, so a signal to the stack's parent (an
	// interactive ^C) reaches the child only through Stop; and killed with
	// the parent, so a stack whose owner crashed (a panicking test) leaves
	// no server holding ports and database connections behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return fmt.Errorf("prodlike: start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = logf.Close(); close(done) }()
	p.cmd, p.done = cmd, done
	return nil
}

// Kill sends SIGKILL (no drain, as a crashed node) and waits for the exit.
func (p *Proc) Kill() { p.signal(syscall.SIGKILL, 10*time.Second) }

// Terminate sends SIGTERM (a rolling update's stop) and waits up to grace
// for the exit, then kills it.
func (p *Proc) Terminate(grace time.Duration) error {
	if p.signal(syscall.SIGTERM, grace) {
		return nil
	}
	p.Kill()
	return errors.New("prodlike: " + p.Name + " did not stop within " + grace.String())
}

// Wait blocks until the process exits or timeout passes; true if it exited.
func (p *Proc) Wait(timeout time.Duration) bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return true
	}
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Running reports whether the process is alive.
func (p *Proc) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && !p.exited()
}

// Pid is the process id of the current run (0 before the first start).
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

func (p *Proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig and reports whether the process exited within wait.
func (p *Proc) signal(sig syscall.Signal, wait time.Duration) bool {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return true
	}
	_ = cmd.Process.Signal(sig)
	return p.Wait(wait)
}
