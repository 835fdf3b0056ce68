package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse/gatehouse/internal/config"
)

func newHealthcheckCommand() *cobra.Command {
	var timeout time.Duration
	cmd := withConfigFlags(&cobra.Command{
		Use:   "healthcheck [URL]",
		Short: "Probe a health URL: exit 0 on a 2xx answer, 1 otherwise",
		Long: `healthcheck sends GET to URL and exits 0 when it answers 2xx within
--timeout, 1 otherwise, so a distroless container (no shell, no curl) can
have a compose or Docker healthcheck. Without URL it probes /healthz on
--http-addr (a wildcard host becomes 127.0.0.1).`,
		Example: `  gatehouse healthcheck
  gatehouse healthcheck http://127.0.0.1:9090/readyz --timeout 2s
  # docker-compose.yml: healthcheck: {test: ["CMD", "/gatehouse", "healthcheck"]}`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url := ""
			if len(args) == 1 {
				url = args[0]
			} else {
				cfg, err := loadConfig(cmd)
				if err != nil {
					return err
				}
				url = healthzURL(cfg.HTTPAddr)
			}
			status, err := probe(cmd.Context(), url, timeout)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %d %s\n", url, status, http.StatusText(status))
			return err
		},
	}, config.RoleHealthcheck)
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait for the answer")
	return cmd
}

// healthzURL is /healthz on the API's listen address, dialled on loopback
// when the address listens on every interface.
func healthzURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/healthz"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz"
}

// probe answers the status of GET url, or an error when there is none or
// it is not 2xx.
func probe(ctx context.Context, url string, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("healthcheck: %w", err)
	}
	defer func() { _ = resp.Body.Close() }() // read only: a close error loses nothing
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("healthcheck: %s answered %d %s", url, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return resp.StatusCode, nil
}
