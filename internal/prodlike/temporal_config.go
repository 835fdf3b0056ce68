package prodlike

import (
	"os"
	"path/filepath"
	"text/template"
)

// temporalPorts are every port one Temporal server process listens on.
type temporalPorts struct {
	Frontend, FrontendMembership, FrontendHTTP int
	History, HistoryMembership                 int
	Matching, MatchingMembership               int
	Worker, WorkerMembership                   int
	Metrics                                    int
	// Pprof serves the server's net/http/pprof, for profiling a benchmark.
	Pprof int
}

const temporalPortCount = 11

func newTemporalPorts(p []int) temporalPorts {
	return temporalPorts{Frontend: p[0], FrontendMembership: p[1], FrontendHTTP: p[2], History: p[3], HistoryMembership: p[4],
		Matching: p[5], MatchingMembership: p[6], Worker: p[7], WorkerMembership: p[8], Metrics: p[9], Pprof: p[10]}
}

// temporalConfig is what the server's YAML is rendered from.
type temporalConfig struct {
	Ports                      temporalPorts
	Host, Port, User, Password string
	Database, Visibility       string
	Shards                     int
	MaxConns                   int
	VisibilityMaxConns         int
	DynamicConfigPath          string
}

// The shape follows the server module's config/development-postgres12.yaml,
// with every port chosen by the stack and persistence on the stack's own
// two databases.
var temporalYAML = template.Must(template.New("temporal").Parse(`log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: {{.Shards}}
  datastores:
    default:
      sql:
        pluginName: postgres12
        databaseName: {{.Database}}
        connectAddr: "{{.Host}}:{{.Port}}"
        connectProtocol: tcp
        user: "{{.User}}"
        password: "{{.Password}}"
        maxConns: {{.MaxConns}}
        maxIdleConns: {{.MaxConns}}
        maxConnLifetime: 1h
    visibility:
      sql:
        pluginName: postgres12
        databaseName: {{.Visibility}}
        connectAddr: "{{.Host}}:{{.Port}}"
        connectProtocol: tcp
        user: "{{.User}}"
        password: "{{.Password}}"
        maxConns: {{.VisibilityMaxConns}}
        maxIdleConns: {{.VisibilityMaxConns}}
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  metrics:
    prometheus:
      framework: tally
      timerType: histogram
      listenAddress: "127.0.0.1:{{.Ports.Metrics}}"
  pprof:
    host: 127.0.0.1
    port: {{.Ports.Pprof}}
services:
  frontend:
    rpc: {grpcPort: {{.Ports.Frontend}}, membershipPort: {{.Ports.FrontendMembership}}, bindOnLocalHost: true, httpPort: {{.Ports.FrontendHTTP}}}
  matching:
    rpc: {grpcPort: {{.Ports.Matching}}, membershipPort: {{.Ports.MatchingMembership}}, bindOnLocalHost: true}
  history:
    rpc: {grpcPort: {{.Ports.History}}, membershipPort: {{.Ports.HistoryMembership}}, bindOnLocalHost: true}
  worker:
    rpc: {grpcPort: {{.Ports.Worker}}, membershipPort: {{.Ports.WorkerMembership}}, bindOnLocalHost: true}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:{{.Ports.Frontend}}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "{{.DynamicConfigPath}}"
  pollInterval: 10s
`))

// temporalDynamicConfig is the server's dynamic config as a cluster runs
// it: search attributes and namespaces are read from the server's caches.
const temporalDynamicConfig = `frontend.enableUpdateWorkflowExecution:
  - value: true
`

// bootstrapDynamicConfig is the dynamic config of the first, short run of
// the server that registers the namespace and the search attributes: they
// are visible at once instead of after the caches' refresh (a minute).
// Every later read would go to the database under a global lock, which no
// cluster does, so the server is then restarted with temporalDynamicConfig.
const bootstrapDynamicConfig = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
` + temporalDynamicConfig

// writeTemporalConfig writes the server's YAML and its bootstrap dynamic
// config into dir and returns the YAML's path.
func writeTemporalConfig(dir string, c temporalConfig) (string, error) {
	c.DynamicConfigPath = filepath.Join(dir, "dynamicconfig.yaml")
	if err := writeDynamicConfig(dir, bootstrapDynamicConfig); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "temporal.yaml")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	if err := temporalYAML.Execute(f, c); err != nil {
		_ = f.Close()
		return "", err
	}
	return path, f.Close()
}

// writeDynamicConfig replaces the server's dynamic config in dir.
func writeDynamicConfig(dir, content string) error {
	return os.WriteFile(filepath.Join(dir, "dynamicconfig.yaml"), []byte(content), 0o600)
}
