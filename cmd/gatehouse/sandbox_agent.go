package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
)

// newSandboxAgentCommand is what runs inside a kubernetes sandbox Pod.
func newSandboxAgentCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox-agent",
		Short: "Run inside a sandbox Pod: serve SSH with recorded runs, and their inspection",
		Long: `The kubernetes sandbox provider runs this in each sandbox Pod (with
GATEHOUSE_SANDBOX_KUBE_AGENT_IMAGE set): "install" copies the binary into a
volume the sandbox image shares, and "serve" runs the sandbox's SSH server,
recording every command as a run, and the inspection port the API reads
runs and files from, configured by the GATEHOUSE_SANDBOX_* variables the
Pod sets.`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "install DEST",
		Short: "Copy this binary to DEST",
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { return agent.Install(args[0]) },
	}, &cobra.Command{
		Use:   "serve",
		Short: "Serve the sandbox until terminated",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := agent.ConfigFromEnv(os.LookupEnv)
			if err != nil {
				return err
			}
			cfg.Env = agent.CommandEnv(os.Environ())
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return agent.Serve(ctx, cfg)
		},
	})
	return cmd
}
