package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gatehouse/gatehouse/internal/config"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "gatehouse",
		Short: "Durable control plane for long-running AI-agent missions",
		Long: `Gatehouse runs every experiment and rollout as a Temporal workflow whose gates
(operator approval, reviewer verdicts, lease heartbeats) are signals, behind
an HTTP API that speaks the FlyLab, research and flywheel contracts.

Configuration comes from GATEHOUSE_* environment variables; every variable
has a flag of the same name (GATEHOUSE_HTTP_ADDR is --http-addr), and a flag
wins over the environment. Each subcommand's --help lists the variables it
reads.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newDevCommand(), newAPICommand(), newWorkerCommand(), newMigrateCommand(), newVersionCommand(), newKeysCommand())
	root.AddCommand(newRunnerCommand())
	root.AddCommand(newLoadCommand())
	root.AddCommand(newSandboxAgentCommand())
	root.AddCommand(newHealthcheckCommand())
	return root
}

// withConfigFlags gives cmd a flag for each variable role reads, so its
// --help lists exactly those (and loadConfig layers them on the environment).
func withConfigFlags(cmd *cobra.Command, role config.Role) *cobra.Command {
	addConfigFlags(cmd.Flags(), role)
	return cmd
}

func addConfigFlags(flags *pflag.FlagSet, role config.Role) {
	for _, v := range config.VarsFor(role) {
		flags.String(flagName(v.Name), "", v.Help+envHint(v))
	}
}

// loadConfig reads the environment with the command's flags layered on top.
func loadConfig(cmd *cobra.Command) (config.Config, error) {
	flags := cmd.Flags()
	return config.FromLookup(func(name string) (string, bool) {
		if f := flags.Lookup(flagName(name)); f != nil && f.Changed {
			return f.Value.String(), true
		}
		return os.LookupEnv(name)
	})
}

// flagName maps GATEHOUSE_HTTP_ADDR to http-addr.
func flagName(env string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(env, "GATEHOUSE_")), "_", "-")
}

func envHint(v config.Var) string {
	h := " (env " + v.Name
	if v.Default != "" {
		h += ", default " + v.Default
	}
	return h + ")"
}
