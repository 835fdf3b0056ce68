package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// The exclusion reasons (the contract's Exclusion.reason) the runner
// reports, each for what really happened.
const (
	// ExclusionEntrypoint: the agent command could not be started.
	ExclusionEntrypoint = "entrypoint_error"
	// ExclusionAgentExit: the agent ran and exited non-zero (or was killed
	// by a signal the runner did not send).
	ExclusionAgentExit = "agent_exit_nonzero"
	// ExclusionDeadline: the agent was still running at the deadline.
	ExclusionDeadline = "deadline_exceeded"
	// ExclusionCancelled: the runner itself was shut down mid-rollout.
	ExclusionCancelled = "cancelled"
	// ExclusionSubstrate: the runner could not set up what the agent
	// needs (its LLM proxy, its input files).
	ExclusionSubstrate = "substrate_unavailable"
)

type agentResult struct {
	stdout string
	// startErr is set when the agent never ran; err when it ran and failed.
	startErr, setupErr, err error
	// killed: the runner stopped the agent (its context ended).
	killed bool
	wall   time.Duration
	// llmCalls is the completions counted through the proxy; nil when the
	// agent never ran (nothing to assert).
	llmCalls *int64
}

// exclusionOf names what happened, in order of cause: the agent never
// started; the runner stopped it because it shut down or the deadline
// came; or the agent failed on its own. An agent that finished before any
// of that is not excluded.
func exclusionOf(runner, agent context.Context, res agentResult) (string, string) {
	switch {
	case res.setupErr != nil:
		return ExclusionSubstrate, res.setupErr.Error()
	case res.startErr != nil:
		return ExclusionEntrypoint, res.startErr.Error()
	case res.killed && runner.Err() != nil:
		return ExclusionCancelled, "the runner shut down while the agent was running"
	case res.killed && errors.Is(agent.Err(), context.DeadlineExceeded):
		return ExclusionDeadline, "the agent was still running at deadline_ts"
	case res.err != nil:
		return ExclusionAgentExit, res.err.Error()
	}
	return "", ""
}

// runAgentWithProxy hands the agent its inputs and a counting LLM proxy,
// runs it, and returns what it did with the completions it made.
func runAgentWithProxy(ctx context.Context, opts Options, r RolloutRequest, dir string) agentResult {
	in, err := writeInputs(opts.WorkDir, r)
	defer in.remove()
	if err != nil {
		return agentResult{setupErr: fmt.Errorf("writing the rollout's input files: %w", err)}
	}
	proxy, err := startLLMProxy(r.LLMURL, opts.LLMTransport)
	if err != nil {
		return agentResult{setupErr: fmt.Errorf("starting the LLM proxy: %w", err)}
	}
	res := runAgent(ctx, opts, agentEnv(os.Environ(), r, proxy.URL(), dir, in), dir)
	calls := proxy.Close()
	if res.startErr == nil {
		res.llmCalls = &calls
	}
	return res
}

// runAgent spawns the command with env, in its own process group (killed
// whole when ctx ends).
func runAgent(ctx context.Context, opts Options, env []string, dir string) agentResult {
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout := &capped{max: opts.StdoutCap}
	stderr := &capped{max: 4096}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return agentResult{startErr: fmt.Errorf("entrypoint: %w", err)}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	killed := false
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err, killed = <-done, true
	}
	if err != nil && stderr.b.Len() > 0 {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.b.String()))
	}
	return agentResult{stdout: strings.TrimRight(stdout.b.String(), "\n"), err: err, killed: killed, wall: time.Since(start)}
}

// capped keeps the first max bytes written and drops the rest.
type capped struct {
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
