// Package devserver runs a single-process Temporal server backed by a SQLite
// file, plus the Temporal Web UI, for `gatehouse dev` and the end-to-end
// tests. It is the Temporal CLI dev server's recipe, reduced to what
// Gatehouse needs: one namespace, its search attributes, one history shard,
// static membership on loopback.
package devserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/metrics"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

// Options configure an embedded server.
type Options struct {
	// DatabasePath is the SQLite file; it is created with the schema when new.
	DatabasePath string
	// FrontendAddr is host:port of the gRPC frontend; port 0 picks a free one.
	FrontendAddr string
	// UIAddr is host:port of the Web UI; empty disables the UI.
	UIAddr string
	// Namespace is created at start if missing.
	Namespace string
	// SearchAttributes are registered in the namespace (Keyword, Int, …).
	SearchAttributes map[string]enumspb.IndexedValueType
	// Logger receives the server's logs; nil discards them.
	Logger log.Logger
}

// Server is a running embedded Temporal server.
type Server struct {
	temporal     temporal.Server
	dynamic      *bootstrapConfig
	ui           *uiServer
	frontendAddr string
	uiURL        string
}

// Start creates the schema and namespace if needed and starts the server
// (and the UI when UIAddr is set).
func Start(opts Options) (*Server, error) {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Logger == nil {
		opts.Logger = log.NewNoopLogger()
	}
	chosenHost, chosenPort, err := splitAddr(opts.FrontendAddr)
	if err != nil {
		return nil, fmt.Errorf("frontend address: %w", err)
	}
	if chosenPort != 0 {
		if err := ensurePortFree(chosenHost, chosenPort); err != nil {
			return nil, fmt.Errorf("temporal frontend %s:%d: %w", chosenHost, chosenPort, err)
		}
	}
	sqlCfg, err := prepareDatabase(opts)
	if err != nil {
		return nil, err
	}
	// Ports picked free are released, then bound by the server, so
	// something else may take one in between (picks stay out of the
	// kernel's ephemeral range, see freePorts, which makes that rare).
	// The server then fails to start with ErrPortInUse: pick again,
	// unless the caller chose the frontend's port, which the failed start
	// may still hold.
	dynamicConfig := newBootstrapConfig()
	var (
		srv          temporal.Server
		host         string
		frontendPort int
	)
	for attempt := 1; ; attempt++ {
		if host, frontendPort, err = resolvePort(opts.FrontendAddr); err != nil {
			return nil, err
		}
		ports, err := internalPorts(host, 3)
		if err != nil {
			return nil, err
		}
		if srv, err = startServer(opts.Logger, host, frontendPort, ports, sqlCfg, dynamicConfig); err == nil {
			break
		}
		if !errors.Is(err, ErrPortInUse) || attempt == startAttempts || chosenPort != 0 {
			return nil, err
		}
	}
	s := &Server{temporal: srv, dynamic: dynamicConfig, frontendAddr: net.JoinHostPort(host, strconv.Itoa(frontendPort))}
	if opts.UIAddr != "" {
		ui, err := startUI(opts.UIAddr, s.frontendAddr)
		if err != nil {
			_ = srv.Stop()
			return nil, err
		}
		s.ui = ui
		s.uiURL = "http://" + ui.addr
	}
	return s, nil
}

// internalPorts picks the history, matching and worker ports (a test
// hands out taken ones); startAttempts bounds the picks of a Start.
var internalPorts = freePorts

const startAttempts = 3

// startServer builds and starts the server on these ports; a Fatal it
// logs while starting is its error (startupLogger).
func startServer(logger log.Logger, host string, frontendPort int, ports []int, sqlCfg *config.SQL, dynamicConfig *bootstrapConfig) (srv temporal.Server, err error) {
	started := &atomic.Bool{}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(startupFatal)
			if !ok {
				panic(r)
			}
			srv, err = nil, f
		}
	}()
	hosts := map[primitives.ServiceName]static.Hosts{
		primitives.FrontendService: static.SingleLocalHost(net.JoinHostPort(host, strconv.Itoa(frontendPort))),
		primitives.HistoryService:  static.SingleLocalHost(net.JoinHostPort(host, strconv.Itoa(ports[0]))),
		primitives.MatchingService: static.SingleLocalHost(net.JoinHostPort(host, strconv.Itoa(ports[1]))),
		primitives.WorkerService:   static.SingleLocalHost(net.JoinHostPort(host, strconv.Itoa(ports[2]))),
	}
	srv, err = temporal.NewServer(
		temporal.WithConfig(serverConfig(host, frontendPort, ports, sqlCfg)),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(startupLogger{Logger: logger, started: started}),
		temporal.WithCustomMetricsHandler(metrics.NoopMetricsHandler),
		temporal.WithDynamicConfigClient(dynamicConfig),
	)
	if err != nil {
		return nil, fmt.Errorf("temporal server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("temporal server start: %w", err)
	}
	started.Store(true)
	return srv, nil
}

// FrontendAddr is the gRPC address clients and workers dial.
func (s *Server) FrontendAddr() string { return s.frontendAddr }

// UIURL is the Web UI's base URL, or "" when the UI is off.
func (s *Server) UIURL() string { return s.uiURL }

// Stop stops the UI and the server.
func (s *Server) Stop() error {
	if s.ui != nil {
		s.ui.stop()
	}
	return s.temporal.Stop()
}

// prepareDatabase creates the SQLite schema for a new file and the namespace
// with Gatehouse's search attributes; both are no-ops on an existing file.
func prepareDatabase(opts Options) (*config.SQL, error) {
	if opts.DatabasePath == "" {
		return nil, errors.New("devserver: DatabasePath is required")
	}
	if err := os.MkdirAll(filepath.Dir(opts.DatabasePath), 0o755); err != nil {
		return nil, err
	}
	sqlCfg := &config.SQL{
		PluginName:   sqliteplugin.PluginName,
		DatabaseName: opts.DatabasePath,
		// Keys other than SQLite URI parameters become pragmas: WAL with
		// synchronous=normal is durable across process crashes (not power
		// loss), which is the dev server's promise, and avoids an fsync per
		// commit.
		ConnectAttributes: map[string]string{"mode": "rwc", "journal_mode": "wal", "synchronous": "normal", "busy_timeout": "10000"},
	}
	if _, err := os.Stat(opts.DatabasePath); errors.Is(err, os.ErrNotExist) {
		if err := sqliteschema.SetupSchema(sqlCfg); err != nil {
			return nil, fmt.Errorf("temporal schema: %w", err)
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig("active", opts.Namespace, false, opts.SearchAttributes)
	if err != nil {
		return nil, err
	}
	if err := sqliteschema.CreateNamespaces(sqlCfg, ns); err != nil {
		return nil, fmt.Errorf("temporal namespace: %w", err)
	}
	return sqlCfg, nil
}

// serverConfig is a single-shard, single-cluster configuration on loopback.
func serverConfig(host string, frontendPort int, ports []int, sqlCfg *config.SQL) *config.Config {
	svc := func(port int) config.Service {
		return config.Service{RPC: config.RPC{GRPCPort: port, BindOnIP: host}}
	}
	frontend := net.JoinHostPort(host, strconv.Itoa(frontendPort))
	return &config.Config{
		Global: config.Global{
			Membership: config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: host},
		},
		Persistence: config.Persistence{
			DefaultStore:     sqliteplugin.PluginName,
			VisibilityStore:  sqliteplugin.PluginName,
			NumHistoryShards: 1,
			DataStores:       map[string]config.DataStore{sqliteplugin.PluginName: {SQL: sqlCfg}},
		},
		ClusterMetadata: &cluster.Config{
			FailoverVersionIncrement: 10,
			MasterClusterName:        "active",
			CurrentClusterName:       "active",
			ClusterInformation: map[string]cluster.ClusterInformation{
				"active": {Enabled: true, InitialFailoverVersion: 1, RPCAddress: frontend},
			},
		},
		DCRedirectionPolicy: config.DCRedirectionPolicy{Policy: "noop"},
		Services: map[string]config.Service{
			"frontend": svc(frontendPort),
			"history":  svc(ports[0]),
			"matching": svc(ports[1]),
			"worker":   svc(ports[2]),
		},
		Archival: config.Archival{
			History:    config.HistoryArchival{State: "disabled"},
			Visibility: config.VisibilityArchival{State: "disabled"},
		},
		NamespaceDefaults: config.NamespaceDefaults{Archival: config.ArchivalNamespaceDefaults{
			History:    config.HistoryArchivalNamespaceDefaults{State: "disabled"},
			Visibility: config.VisibilityArchivalNamespaceDefaults{State: "disabled"},
		}},
		PublicClient: config.PublicClient{HostPort: frontend},
	}
}
