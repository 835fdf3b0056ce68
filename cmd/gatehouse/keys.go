package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/config"
)

func newKeysCommand() *cobra.Command {
	keys := &cobra.Command{
		Use:   "keys",
		Short: "Mint, list and revoke agent keys and operator tokens in the database",
		Long: `keys works on the database of --database-url directly, for the first
operator of a production deployment; afterwards operators can use
POST /operator/v1/keys. A minted plaintext is printed once and never again.`,
		Example: `  GATEHOUSE_DATABASE_URL=postgres://gatehouse@db/gatehouse gatehouse keys create --role operator --name alice
  gatehouse keys list --database-url postgres://gatehouse@db/gatehouse`,
	}
	addConfigFlags(keys.PersistentFlags(), config.RoleDatabase)
	var role, name string
	var projects []string
	var all bool
	create := &cobra.Command{
		Use:   "create",
		Short: "Mint a credential and print its plaintext once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			out, err := app.MintKey(cmd.Context(), cfg, role, name, projects, all)
			if err != nil {
				return err
			}
			return printJSON(cmd, out)
		},
	}
	create.Flags().StringVar(&role, "role", "agent", "agent or operator")
	create.Flags().StringVar(&name, "name", "", "who or what the credential is for (required)")
	create.Flags().StringSliceVar(&projects, "project", nil, "project id the key may use (repeatable)")
	create.Flags().BoolVar(&all, "all-projects", false, "let the key use every project")
	_ = create.MarkFlagRequired("name")

	list := &cobra.Command{
		Use:   "list",
		Short: "List credentials (no plaintext)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			out, err := app.ListKeys(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			return printJSON(cmd, out)
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a credential by id",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			if err := app.RevokeKey(cmd.Context(), cfg, args[0]); err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), "revoked", args[0])
			return err
		},
	}
	keys.AddCommand(create, list, revoke)
	return keys
}

func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
