package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/runner"
)

func newRunnerCommand() *cobra.Command {
	var opts runner.Options
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "runner --server URL --agent-key KEY -- <agent command...>",
		Short: "Claim flywheel rollouts and run an agent command once per rollout",
		Long: `runner claims rollouts from a Gatehouse server and runs the agent command once
per rollout. The rollout's configuration reaches the agent only through its
environment: OPENAI_BASE_URL (the per-rollout llm_url), OPENAI_API_KEY (the
rollout's api_key), GATEHOUSE_ROLLOUT_ID, GATEHOUSE_TURN_INPUT,
GATEHOUSE_ARTIFACTS_DIR and GATEHOUSE_DEADLINE_TS; the runner's own key and
GATEHOUSE_*/OPENAI_* variables are not passed on. The runner heartbeats at a
third of the lease granted at claim, kills the agent at deadline_ts, and posts
the agent's stdout as final_text with the artifacts directory's files.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command = args
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
	f.StringVar(&opts.AgentKey, "agent-key", "", "agent API key (mk_…)")
	f.StringVar(&opts.WorkDir, "work-dir", "", "directory for rollouts' artifacts (default: a temporary directory)")
	f.IntVar(&opts.Concurrency, "concurrency", 1, "rollouts run at once")
	f.Float64Var(&opts.LeaseS, "lease-s", 60, "lease requested per claim, seconds (the server may clamp it)")
	f.IntVar(&opts.MaxRollouts, "max-rollouts", 0, "stop after this many rollouts (0: run until interrupted)")
	f.DurationVar(&timeout, "timeout", 0, "stop after this long (0: no limit)")
	return cmd
}
