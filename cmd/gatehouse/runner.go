package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/runner"
)

// runnerKeyEnv names the environment variable holding the runner's agent
// key. A key on the command line would be readable by every local user
// (ps, /proc/<pid>/cmdline), so argv never carries it.
const runnerKeyEnv = "GATEHOUSE_AGENT_KEY"

func newRunnerCommand() *cobra.Command {
	var opts runner.Options
	var timeout time.Duration
	var keyFile, argvKey string
	cmd := &cobra.Command{
		Use:   "runner --server URL [--agent-key-file PATH] -- <agent command...>",
		Short: "Claim flywheel rollouts and run an agent command once per rollout",
		Long: `runner claims rollouts from a Gatehouse server and runs the agent command once
per rollout. Its own agent key (mk_…) comes from ` + runnerKeyEnv + ` or from the
file --agent-key-file names, never from the command line.

The rollout's configuration reaches the agent only through its environment:
OPENAI_BASE_URL (a loopback proxy that forwards to the rollout's llm_url and
counts the completions, reported as llm_call_count), OPENAI_API_KEY (the
rollout's api_key), GATEHOUSE_ROLLOUT_ID, GATEHOUSE_TURN_INPUT_FILE (the turn
input; GATEHOUSE_TURN_INPUT also holds it when it is small and has no NUL),
GATEHOUSE_METADATA_FILE (when the rollout has metadata),
GATEHOUSE_ARTIFACTS_DIR and GATEHOUSE_DEADLINE_TS. Every provider credential
of the runner's environment (OPENAI_*, ANTHROPIC_*, AWS_*, GOOGLE_*, AZURE_*,
GATEHOUSE_*, *_API_KEY, *_TOKEN, …) is withheld. The runner heartbeats at a
third of the lease granted at claim, stops the agent shortly before
deadline_ts so its report still lands, and posts the agent's stdout as
final_text with the artifacts directory's files, excluded as entrypoint_error,
agent_exit_nonzero, deadline_exceeded or cancelled (runner shut down) when
that is what happened.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if argvKey != "" {
				return errors.New("--agent-key is not accepted: a key in argv is visible to every local user; set " + runnerKeyEnv + " or use --agent-key-file")
			}
			key, err := runnerKey(keyFile)
			if err != nil {
				return err
			}
			opts.AgentKey, opts.Command = key, args
			opts.Log = slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel func()
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			return runner.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Server, "server", "", "Gatehouse base URL")
	f.StringVar(&keyFile, "agent-key-file", "", "file holding the agent API key (mk_…); default: $"+runnerKeyEnv)
	f.StringVar(&argvKey, "agent-key", "", "refused: pass the key through $"+runnerKeyEnv+" or --agent-key-file")
	_ = f.MarkHidden("agent-key")
	f.StringVar(&opts.WorkDir, "work-dir", "", "directory for rollouts' artifacts (default: a temporary directory)")
	f.IntVar(&opts.Concurrency, "concurrency", 1, "rollouts run at once")
	f.Float64Var(&opts.LeaseS, "lease-s", 60, "lease requested per claim, seconds (the server may clamp it)")
	f.IntVar(&opts.MaxRollouts, "max-rollouts", 0, "stop after this many rollouts (0: run until interrupted)")
	f.DurationVar(&timeout, "timeout", 0, "stop after this long (0: no limit)")
	return cmd
}

// runnerKey reads the agent key from file, or else from the environment.
func runnerKey(file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--agent-key-file: %w", err)
		}
		if key := strings.TrimSpace(string(b)); key != "" {
			return key, nil
		}
		return "", fmt.Errorf("--agent-key-file %s is empty", file)
	}
	if key := strings.TrimSpace(os.Getenv(runnerKeyEnv)); key != "" {
		return key, nil
	}
	return "", errors.New("no agent key: set " + runnerKeyEnv + " or use --agent-key-file")
}
