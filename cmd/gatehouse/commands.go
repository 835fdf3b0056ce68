package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/app"
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
	return &cobra.Command{
		Use:   "api",
		Short: "Serve the HTTP API against Temporal (--temporal-address) and PostgreSQL (--database-url)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			return app.API(cmd.Context(), cfg)
		},
	}
}

func newWorkerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the Temporal worker (workflows and activities) against Temporal and PostgreSQL",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			return app.Worker(cmd.Context(), cfg)
		},
	}
}

func newMigrateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending versioned database migrations to --database-url and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			return app.Migrate(cmd.Context(), cfg)
		},
	}
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "gatehouse %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		},
	}
}
