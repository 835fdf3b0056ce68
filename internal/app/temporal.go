// Package app assembles Gatehouse's process roles (dev, api, worker,
// migrate) from configuration: it opens the database, dials Temporal, starts
// the worker and the HTTP server, and shuts them down in order.
package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	wf "github.com/gatehouse/gatehouse/workflows/platform"
)

// dialTemporal connects to Temporal, retrying for up to a minute so a
// process started beside its Temporal server (compose, Kubernetes) waits
// for it instead of crash-looping.
func dialTemporal(ctx context.Context, cfg config.Config, tel *telemetry.Telemetry, log *slog.Logger) (client.Client, error) {
	interceptors, err := tel.TemporalInterceptors()
	if err != nil {
		return nil, err
	}
	opts := client.Options{
		HostPort:       cfg.TemporalAddress,
		Namespace:      cfg.TemporalNamespace,
		Logger:         sdklog.NewStructuredLogger(log.With("component", "temporal-sdk")),
		MetricsHandler: tel.TemporalMetrics(),
		Interceptors:   interceptors,
	}
	if cfg.TemporalTLSCert != "" || cfg.TemporalAPIKey != "" {
		tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if cfg.TemporalTLSCert != "" {
			cert, err := tls.LoadX509KeyPair(cfg.TemporalTLSCert, cfg.TemporalTLSKey)
			if err != nil {
				return nil, fmt.Errorf("temporal tls: %w", err)
			}
			tlsCfg.Certificates = []tls.Certificate{cert}
		}
		opts.ConnectionOptions.TLS = tlsCfg
	}
	if cfg.TemporalAPIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.TemporalAPIKey)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := client.DialContext(ctx, opts)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("dial temporal at %s: %w", cfg.TemporalAddress, err)
		}
		log.Warn("temporal not reachable yet; retrying", "address", cfg.TemporalAddress, "error", err.Error())
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// ensureSearchAttributes registers Gatehouse's search attributes in the
// namespace when they are missing. A cluster that refuses (Temporal Cloud
// without admin rights) gets a warning: register them there by hand.
func ensureSearchAttributes(ctx context.Context, c client.Client, namespace string, log *slog.Logger) {
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		log.Warn("cannot list search attributes", "error", err.Error())
		return
	}
	missing := map[string]enumsIndexed{}
	for name, typ := range wf.SearchAttributes() {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			missing[name] = typ
		}
	}
	if len(missing) == 0 {
		return
	}
	_, err = ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: namespace, SearchAttributes: missing})
	if err != nil {
		log.Warn("cannot register search attributes; register GatehouseProject, GatehouseGate, GatehouseKind (Keyword) by hand", "error", err.Error())
	}
}
