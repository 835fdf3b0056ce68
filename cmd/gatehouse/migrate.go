package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/config"
)

func newMigrateCommand() *cobra.Command {
	migrate := roleCommand("migrate", "Apply pending versioned database migrations to --database-url and exit", config.RoleDatabase, app.Migrate)
	migrate.Long = `migrate applies, in order and each in its own transaction, every versioned
migration of this build the database lacks, under a PostgreSQL advisory lock
so concurrent runs apply each once. api and worker refuse to start on a
database with pending migrations.

Migrations only go forward. The way back is the backup: take one before
migrating, and to return to an older release restore it and deploy that
release's image (an older binary does not know the newer tables).`
	migrate.Example = `  gatehouse migrate status --database-url postgres://gatehouse@db/gatehouse
  GATEHOUSE_DATABASE_URL=postgres://gatehouse@db/gatehouse gatehouse migrate`
	migrate.AddCommand(newMigrateStatusCommand())
	return migrate
}

func newMigrateStatusCommand() *cobra.Command {
	return withConfigFlags(&cobra.Command{
		Use:   "status",
		Short: "List this build's migrations as applied or pending; changes nothing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			states, err := app.MigrationStatus(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			pending := 0
			for _, s := range states {
				state := "applied"
				if !s.Applied {
					state, pending = "pending", pending+1
				}
				if _, err := fmt.Fprintf(w, "%s\t%s\n", state, s.ID); err != nil {
					return err
				}
			}
			if _, err := fmt.Fprintf(w, "\n%d applied, %d pending\n", len(states)-pending, pending); err != nil {
				return err
			}
			return w.Flush()
		},
	}, config.RoleDatabase)
}
