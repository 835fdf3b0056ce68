package main

import (
	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/load"
)

func newLoadCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Drive a local Gatehouse server with bounded synthetic load",
	}
	cmd.AddCommand(newLoadFlywheelCommand())
	return cmd
}

func newLoadFlywheelCommand() *cobra.Command {
	var opts load.FlywheelOptions
	cmd := &cobra.Command{
		Use:   "flywheel --server URL --operator-token op_… --agent-key mk_… --rollouts N --duration D",
		Short: "Enqueue, lease and heartbeat N rollouts for D, then print throughput and latency percentiles",
		Long: `flywheel enqueues N rollouts with the operator token, claims all of them with
the agent key (16 per claim), heartbeats them round-robin from --concurrency
clients for --duration, then posts an output for each so none is left
running. The server must be a loopback URL; N is at most 10000 and D at most
10m. Every run prints claims/s, heartbeats/s and p50/p90/p99/max per request.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, err := load.Flywheel(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return rep.Write(cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Server, "server", "", "Gatehouse base URL on a loopback address (required)")
	f.StringVar(&opts.OperatorToken, "operator-token", "", "operator token that enqueues the rollouts (op_…)")
	f.StringVar(&opts.AgentKey, "agent-key", "", "agent key that claims them (mk_…)")
	f.IntVar(&opts.Rollouts, "rollouts", 100, "rollouts to enqueue and lease (1-10000)")
	f.DurationVar(&opts.Duration, "duration", 0, "how long to heartbeat (up to 10m; required)")
	f.IntVar(&opts.Concurrency, "concurrency", 32, "heartbeating clients")
	return cmd
}
