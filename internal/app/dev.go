package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	serverlog "go.temporal.io/server/common/log"

	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/devserver"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	"github.com/gatehouse/gatehouse/models"
	wf "github.com/gatehouse/gatehouse/workflows/platform"
)

// DevStack is a running `gatehouse dev`: embedded Temporal and its UI,
// SQLite, the blob store, the worker and the API in one process.
type DevStack struct {
	// APIURL is the API's base URL.
	APIURL string
	// TemporalAddr is the embedded frontend's gRPC address.
	TemporalAddr string
	// UIURL is the embedded Temporal Web UI.
	UIURL string
	// APIKey is the development agent key.
	APIKey string
	// OperatorToken is the development operator token.
	OperatorToken string

	svc *services
}

// DevOptions tune StartDev for tests.
type DevOptions struct {
	// LogOutput receives the JSON logs (default: discarded).
	LogOutput io.Writer
	// QuietTemporal silences the embedded server's own logs.
	QuietTemporal bool
	// NoWorker leaves the worker out, for tests that run workers as
	// separate processes (and kill them).
	NoWorker bool
}

// StartDev starts the whole stack and returns once it serves.
func StartDev(ctx context.Context, cfg config.Config, opts DevOptions) (*DevStack, error) {
	if opts.LogOutput == nil {
		opts.LogOutput = io.Discard
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	cfg.DataDir = dataDir
	if err := privateDataDir(dataDir); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(cfg.BlobDir) {
		cfg.BlobDir = filepath.Join(dataDir, "blobs")
	}
	s := &services{cfg: cfg, log: telemetry.NewLogger(opts.LogOutput, cfg.LogLevel)}
	ok := false
	defer func() {
		if !ok {
			_ = s.close()
		}
	}()
	if s.tel, err = telemetry.New(ctx, cfg.OTLPEndpoint); err != nil {
		return nil, err
	}
	var tlog serverlog.Logger = serverlog.NewNoopLogger()
	if !opts.QuietTemporal {
		tlog = serverlog.NewZapLogger(serverlog.BuildZapLogger(serverlog.Config{Level: "warn", Format: "json"}))
	}
	srv, err := devserver.Start(devserver.Options{
		DatabasePath:     filepath.Join(dataDir, "temporal.db"),
		FrontendAddr:     cfg.DevTemporalAddr,
		UIAddr:           cfg.DevUIAddr,
		Namespace:        cfg.TemporalNamespace,
		SearchAttributes: wf.SearchAttributes(),
		Logger:           tlog,
	})
	if err != nil {
		return nil, err
	}
	s.stops = append(s.stops, srv.Stop)
	s.cfg.TemporalAddress = srv.FrontendAddr()
	if s.cfg.TemporalUIURL == "" {
		s.cfg.TemporalUIURL = srv.UIURL()
	}

	dbURL := cfg.DatabaseURL
	if dbURL == "" {
		dbURL = "sqlite:" + filepath.Join(dataDir, "gatehouse.db")
	}
	if s.db, err = openDatabase(dbURL, cfg.DatabasePool, s.tel.Registry); err != nil {
		return nil, err
	}
	if err := models.Migrate(s.db, s.log); err != nil {
		return nil, err
	}
	creds, err := ensureDevCredentials(ctx, s.db, dataDir, cfg.DevAPIKey, cfg.DevOperatorToken)
	if err != nil {
		return nil, err
	}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	// A dev database made by an earlier release may lack an attribute
	// added since; with it registered, the server may read its caches.
	ensureSearchAttributes(ctx, s.temporal, s.cfg.TemporalNamespace, s.log)
	srv.Settle()
	if !opts.NoWorker {
		if err := s.startWorker(); err != nil {
			return nil, err
		}
	}
	if err := s.startAPI(); err != nil {
		return nil, err
	}
	apiURL := "http://" + s.http.Addr()
	if cfg.PublicURL != "" && s.http.Addr() == cfg.HTTPAddr {
		apiURL = cfg.PublicURL
	}
	ok = true
	return &DevStack{
		APIURL: apiURL, TemporalAddr: srv.FrontendAddr(), UIURL: srv.UIURL(),
		APIKey: creds.APIKey, OperatorToken: creds.OperatorToken, svc: s,
	}, nil
}

// DataDir is the stack's data directory.
func (d *DevStack) DataDir() string { return d.svc.cfg.DataDir }

// BlobDir is the stack's blob store root.
func (d *DevStack) BlobDir() string { return d.svc.cfg.BlobDir }

// Close shuts the stack down gracefully.
func (d *DevStack) Close() error { return d.svc.close() }

// Wait blocks until ctx ends or the HTTP server fails, then shuts down.
func (d *DevStack) Wait(ctx context.Context) error { return d.svc.waitForShutdown(ctx) }

// Banner is what `gatehouse dev` prints once the stack serves.
func (d *DevStack) Banner() string {
	return fmt.Sprintf(`Gatehouse dev stack is up.

  API             %s
  OpenAPI         %s/openapi.json
  FlyLab MCP      %s/mcp/flylab
  Research MCP    %s/mcp/research
  Console         %s/console/  (sign in with the operator token)
  Temporal UI     %s
  Temporal gRPC   %s

  Agent API key   %s
  Operator token  %s

Try: curl -s -X POST -H 'Authorization: Bearer %s' %s/v1/ping
Press Ctrl-C to stop; data stays in %s.
`, d.APIURL, d.APIURL, d.APIURL, d.APIURL, d.APIURL, d.UIURL, d.TemporalAddr, d.APIKey, d.OperatorToken, d.APIKey, d.APIURL, d.svc.cfg.DataDir) + unisolatedWarning(d.svc.cfg)
}

// unisolatedWarning is the banner's warning when local sandbox commands
// may run unconfined ("" otherwise).
func unisolatedWarning(cfg config.Config) string {
	if !cfg.Sandbox.UnisolatedIUnderstand || !cfg.Features.Sandboxes {
		return ""
	}
	return `
WARNING: GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND is on. Where bubblewrap
cannot confine them, local sandbox commands run as this user and can read
the data directory (the operator token included) and this process's
environment. Any agent key can then act as operator.
`
}
