package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/buildinfo"
	"github.com/gatehouse/gatehouse/internal/config"
)

func newDevCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "dev",
		Short: "Run everything in one process: embedded Temporal + UI, SQLite, worker, API",
		Long: `dev starts, in one process and with no outside service, an embedded Temporal
server (SQLite under --data-dir, so workflows survive a restart) with its Web
UI, the SQLite database, the filesystem blob store, the worker and the API,
then prints the URLs, a development API key and an operator token.

The first build compiles the Temporal server and takes several minutes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			stack, err := app.StartDev(cmd.Context(), cfg, app.DevOptions{LogOutput: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), stack.Banner())
			return stack.Wait(cmd.Context())
		},
	}
}

func newAPICommand() *cobra.Command {
	return roleCommand("api", "Serve the HTTP API against Temporal (--temporal-address) and PostgreSQL (--database-url)", app.API)
}

func newWorkerCommand() *cobra.Command {
	return roleCommand("worker", "Run the Temporal worker (workflows and activities) against Temporal and PostgreSQL", app.Worker)
}

func newMigrateCommand() *cobra.Command {
	return roleCommand("migrate", "Apply pending versioned database migrations to --database-url and exit", app.Migrate)
}

// roleCommand is a subcommand that runs one production role with the
// configuration from the environment and flags.
func roleCommand(use, short string, run func(context.Context, config.Config) error) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			return run(cmd.Context(), cfg)
		},
	}
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			i := buildinfo.Get()
			fmt.Fprintf(cmd.OutOrStdout(), "gatehouse %s (commit %s, built from a commit of %s, %s, %s/%s)\n",
				i.Version, i.Commit, orUnknown(i.Date), i.GoVersion, runtime.GOOS, runtime.GOARCH)
		},
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown date"
	}
	return s
}
