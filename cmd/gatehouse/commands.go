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
	return withConfigFlags(&cobra.Command{
		Use:   "dev",
		Short: "Run everything in one process: embedded Temporal + UI, SQLite, worker, API",
		Long: `dev starts, in one process and with no outside service, an embedded Temporal
server (SQLite under --data-dir, so workflows survive a restart) with its Web
UI, the SQLite database, the filesystem blob store, the worker and the API,
then prints the URLs, a development API key and an operator token.

The first build compiles the Temporal server and takes several minutes.`,
		Example: `  gatehouse dev
  gatehouse dev --data-dir /tmp/gh --http-addr 127.0.0.1:9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			app.TuneDevCollector()
			stack, err := app.StartDev(cmd.Context(), cfg, app.DevOptions{LogOutput: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			_, _ = fmt.Fprint(cmd.OutOrStdout(), stack.Banner())
			return stack.Wait(cmd.Context())
		},
	}, config.RoleDev)
}

func newAPICommand() *cobra.Command {
	cmd := roleCommand("api", "Serve the HTTP API against Temporal (--temporal-address) and PostgreSQL (--database-url)", config.RoleAPI, app.API)
	cmd.Example = `  GATEHOUSE_DATABASE_URL=postgres://gatehouse@db/gatehouse gatehouse api --temporal-address temporal:7233 --http-addr :8080`
	return cmd
}

func newWorkerCommand() *cobra.Command {
	cmd := roleCommand("worker", "Run the Temporal worker (workflows and activities) against Temporal and PostgreSQL", config.RoleWorker, app.Worker)
	cmd.Example = `  GATEHOUSE_DATABASE_URL=postgres://gatehouse@db/gatehouse gatehouse worker --temporal-address temporal:7233 --worker-health-addr :9090`
	return cmd
}

// roleCommand is a subcommand that runs one production role with the
// configuration from the environment and the flags of what it reads.
func roleCommand(use, short string, role config.Role, run func(context.Context, config.Config) error) *cobra.Command {
	return withConfigFlags(&cobra.Command{
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
	}, role)
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			i := buildinfo.Get()
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "gatehouse %s (commit %s, built from a commit of %s, %s, %s/%s)\n",
				i.Version, i.Commit, orUnknown(i.Date), i.GoVersion, runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown date"
	}
	return s
}
