// Package config reads Gatehouse's configuration from GATEHOUSE_* environment
// variables in one place. Nothing deeper in the code reads the environment.
package config

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the whole runtime configuration of one Gatehouse process.
type Config struct {
	// HTTPAddr is the API listen address.
	HTTPAddr string
	// PublicURL is the absolute base URL put into URLs handed to callers.
	PublicURL string
	// MCPAllowedHosts are Host names the MCP endpoints accept besides
	// loopback names and PublicURL's host (DNS-rebinding protection).
	MCPAllowedHosts []string
	// DatabaseURL is a postgres:// URL; empty means the embedded SQLite
	// database under DataDir (dev only).
	DatabaseURL string
	// DataDir holds the dev stack's SQLite files and the filesystem blob store.
	DataDir string
	// DatabasePool bounds this process's PostgreSQL connections.
	DatabasePool DatabasePool

	// TemporalAddress is host:port of the Temporal frontend.
	TemporalAddress string
	// TemporalNamespace is the namespace every workflow runs in.
	TemporalNamespace string
	// TemporalAPIKey authenticates to Temporal Cloud when set.
	TemporalAPIKey string
	// TemporalTLSCert and TemporalTLSKey are mTLS client files when set.
	TemporalTLSCert string
	// TemporalTLSKey is the private key matching TemporalTLSCert.
	TemporalTLSKey string
	// TemporalUIURL is where operators open the Temporal Web UI (console links).
	TemporalUIURL string
	// TaskQueue is the Temporal task queue the worker polls.
	TaskQueue string
	// WorkerHostID names this host in its host task queue
	// (<TaskQueue>-host-<id>), where the activities of the local sandboxes
	// it holds run; empty: the sanitized hostname.
	WorkerHostID string
	// WorkerHealthAddr is where the worker role serves /healthz, /readyz
	// and /metrics; empty serves nothing.
	WorkerHealthAddr string
	// MetricsAddr is where the api role serves /metrics (and /healthz,
	// /readyz), apart from the public listener the Ingress routes; empty
	// serves /metrics nowhere.
	MetricsAddr string

	// DevTemporalAddr is the embedded Temporal frontend address in dev.
	DevTemporalAddr string
	// DevUIAddr is the embedded Temporal Web UI address in dev.
	DevUIAddr string
	// DevAPIKey fixes the development agent key when set.
	DevAPIKey string
	// DevOperatorToken fixes the development operator token when set.
	DevOperatorToken string
	// BootstrapOperatorToken is stored (hashed) as an operator credential at
	// api start, so a fresh production deployment has a first operator.
	BootstrapOperatorToken string

	// Features switch whole tool families on or off.
	Features Features

	// BlobDir is the filesystem blob store root (defaults to DataDir/blobs).
	BlobDir string
	// CentralGitDir is a git repository whose refs are research projects'
	// central refs; empty keeps them as database records.
	CentralGitDir string
	// MaxBodyBytes caps every request body; larger ones get 413.
	MaxBodyBytes int64
	// LogLevel is debug, info, warn or error.
	LogLevel string
	// ShutdownTimeout bounds graceful shutdown of the HTTP server.
	ShutdownTimeout time.Duration
	// WorkerStopTimeout is how long a stopping worker lets in-flight
	// activities finish before it cancels them (SIGTERM in a rolling
	// update); the worker role's shutdown waits for it.
	WorkerStopTimeout time.Duration
	// OTLPEndpoint enables OpenTelemetry tracing export when set.
	OTLPEndpoint string
	// LLMUpstreamURL is the OpenAI-compatible base URL (…/v1) the flywheel
	// LLM gateway proxies to; empty means the gateway answers 503.
	LLMUpstreamURL string
	// LLMUpstreamAPIKey is sent upstream as the bearer key (never the rollout's).
	LLMUpstreamAPIKey string
	// LLMUpstreamTimeout bounds one LLM gateway call end to end;
	// LLMUpstreamHeaderTimeout the wait for the upstream's first byte.
	LLMUpstreamTimeout, LLMUpstreamHeaderTimeout time.Duration
	// FlywheelLeaseMin and FlywheelLeaseMax clamp the lease a claim asks for.
	FlywheelLeaseMin time.Duration
	// FlywheelLeaseMax is the longest lease a claim is granted.
	FlywheelLeaseMax time.Duration

	// BlobS3 selects the S3-compatible blob store when its Bucket is set.
	BlobS3 BlobS3
	// StorageRetention is how long an unpinned storage object stays available.
	StorageRetention time.Duration
	// StorageSweepInterval is how often the storage sweep schedule runs.
	StorageSweepInterval time.Duration
	// MLflowTrackingURI is the MLflow tracking server the mlflow.* tools use.
	MLflowTrackingURI string

	// Sandbox configures the research sandbox providers.
	Sandbox Sandbox
}

// Sandbox configures the research sandbox providers (sandbox.* tools).
type Sandbox struct {
	// Providers are the providers offered, in order; the first is the
	// default of sandbox.request. Each is one of SandboxProviderNames.
	Providers []string
	// RunAs is the user local sandbox commands run as when the worker runs
	// as root; "root" keeps root. Ignored when the worker is not root.
	// Either way commands run confined by bubblewrap.
	RunAs string
	// UnisolatedIUnderstand lets local sandbox commands run unconfined, as
	// the worker's user, seeing its files and environment, where bubblewrap
	// cannot confine them: only for a single-user machine.
	UnisolatedIUnderstand bool
	// KubeNamespace is where the kubernetes provider creates sandbox Pods.
	KubeNamespace string
	// KubeImage is the sandbox Pod image, pinned by tag or digest.
	KubeImage string
	// KubeAgentImage is the Gatehouse image whose binary runs as the
	// sandbox agent in each Pod, recording runs ("": Pods run KubeImage's
	// own SSH server and record no runs).
	KubeAgentImage string
	// Kubeconfig is the kubeconfig file of the kubernetes provider; empty
	// means the in-cluster service account.
	Kubeconfig string
	// MaxLivePerProject caps a project's live sandboxes (provisioning,
	// running or cleanup_pending), additional ones included.
	MaxLivePerProject int
	// MaxGPUsPerProject caps the GPUs a project's live sandboxes hold.
	MaxGPUsPerProject int
	// MaxLifetime caps a sandbox's whole life, extends included.
	MaxLifetime time.Duration
	// ReapInterval is how often the orphan reaper destroys machines no
	// live sandbox workflow owns.
	ReapInterval time.Duration
}

// SandboxProviderNames are the provider names GATEHOUSE_SANDBOX_PROVIDERS
// accepts; package sandbox/deploy builds one provider per name.
var SandboxProviderNames = []string{"local", "kubernetes"}

// DefaultSandboxKubeImage is the kubernetes sandbox image unless configured:
// a static build tag, never a moving one such as latest.
const DefaultSandboxKubeImage = "lscr.io/linuxserver/openssh-server:9.3_p2-r0-ls127"

// BlobS3 configures the S3-compatible blob store.
type BlobS3 struct {
	// Endpoint is the S3 API base URL (empty: AWS for Region).
	Endpoint string
	// Bucket holds every object; setting it selects this backend.
	Bucket string
	// Region signs requests (default us-east-1).
	Region string
	// AccessKeyID and SecretAccessKey sign requests. Both empty: the AWS
	// SDK's default credential chain (AWS_* variables, IRSA, instance role).
	AccessKeyID string
	// SecretAccessKey is the secret matching AccessKeyID.
	SecretAccessKey string
	// VirtualHostedStyle addresses bucket.host/key instead of host/bucket/key
	// (GATEHOUSE_BLOB_S3_PATH_STYLE=false).
	VirtualHostedStyle bool
}

// Features are the feature flags of the research tool families.
type Features struct {
	// Storage enables the storage.* tools (default on).
	Storage bool
	// Sandboxes enables the sandbox.* tools (default on).
	Sandboxes bool
	// Tracking enables the mlflow.* tools (default off).
	Tracking bool
	// UnderscoreAliases lists underscore tool names for clients that reject dots.
	UnderscoreAliases bool
}

// DatabasePool bounds one process's PostgreSQL connection pool; every api
// and worker replica has its own, so their sum plus Temporal's must stay
// under the server's max_connections.
type DatabasePool struct {
	// MaxConns is the most connections open at once.
	MaxConns int
	// MaxIdleConns stay open while idle (at most MaxConns).
	MaxIdleConns int
	// ConnMaxLifetime recycles a connection after this long (0: never).
	ConnMaxLifetime time.Duration
}

// Var describes one environment variable Gatehouse reads.
type Var struct {
	Name    string
	Default string
	Help    string
}

// Vars lists every environment variable the code reads, in one table, so
// deployment files and docs can be checked against it.
var Vars = []Var{
	{"GATEHOUSE_HTTP_ADDR", "127.0.0.1:8080", "API listen address"},
	{"GATEHOUSE_PUBLIC_URL", "http://<GATEHOUSE_HTTP_ADDR>", "absolute base URL put into URLs handed to callers"},
	{"GATEHOUSE_DATABASE_URL", "", "postgres:// URL (api, worker, migrate); dev uses SQLite when empty"},
	{"GATEHOUSE_DATABASE_MAX_CONNS", "16", "most PostgreSQL connections this process opens (replicas × this + Temporal's pools must fit under max_connections)"},
	{"GATEHOUSE_DATABASE_MAX_IDLE_CONNS", "16", "PostgreSQL connections kept open while idle (at most GATEHOUSE_DATABASE_MAX_CONNS)"},
	{"GATEHOUSE_DATABASE_CONN_MAX_LIFETIME", "30m", "recycle a PostgreSQL connection after this long (0: never)"},
	{"GATEHOUSE_DATA_DIR", "./.gatehouse", "dev data: SQLite files and blobs"},
	{"GATEHOUSE_TEMPORAL_ADDRESS", "127.0.0.1:7233", "Temporal frontend host:port"},
	{"GATEHOUSE_TEMPORAL_NAMESPACE", "default", "Temporal namespace"},
	{"GATEHOUSE_TEMPORAL_API_KEY", "", "Temporal Cloud API key"},
	{"GATEHOUSE_TEMPORAL_TLS_CERT", "", "mTLS client certificate file for Temporal"},
	{"GATEHOUSE_TEMPORAL_TLS_KEY", "", "mTLS client key file for Temporal"},
	{"GATEHOUSE_TEMPORAL_UI_URL", "", "Temporal Web UI base URL for console links"},
	{"GATEHOUSE_TASK_QUEUE", "gatehouse", "Temporal task queue"},
	{"GATEHOUSE_WORKER_HOST_ID", "", "host id of the worker's host task queue (local sandboxes); empty: the sanitized hostname"},
	{"GATEHOUSE_WORKER_HEALTH_ADDR", "", "worker role's /healthz, /readyz and /metrics listen address; empty: none"},
	{"GATEHOUSE_METRICS_ADDR", "", "api role's /metrics (with /healthz and /readyz) listen address, never the public GATEHOUSE_HTTP_ADDR; empty: no metrics (the image sets 0.0.0.0:9090)"},
	{"GATEHOUSE_DEV_TEMPORAL_ADDR", "127.0.0.1:7233", "embedded Temporal frontend (dev)"},
	{"GATEHOUSE_DEV_UI_ADDR", "127.0.0.1:8233", "embedded Temporal Web UI (dev)"},
	{"GATEHOUSE_DEV_API_KEY", "", "fixed development agent key (dev)"},
	{"GATEHOUSE_DEV_OPERATOR_TOKEN", "", "fixed development operator token (dev)"},
	{"GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN", "", "operator token stored hashed at api start (production bootstrap): `openssl rand -hex 32` or an op_… token, presented as is"},
	{"GATEHOUSE_FEATURE_STORAGE", "true", "storage tool family"},
	{"GATEHOUSE_FEATURE_SANDBOXES", "true", "sandbox tool family"},
	{"GATEHOUSE_FEATURE_TRACKING", "false", "MLflow tool family"},
	{"GATEHOUSE_MCP_UNDERSCORE_ALIASES", "false", "list underscore aliases of dotted tool names"},
	{"GATEHOUSE_MCP_ALLOWED_HOSTS", "", "comma list of Host names the MCP endpoints accept besides loopback names and GATEHOUSE_PUBLIC_URL's host (DNS-rebinding protection)"},
	{"GATEHOUSE_BLOB_DIR", "<GATEHOUSE_DATA_DIR>/blobs", "filesystem blob store root"},
	{"GATEHOUSE_CENTRAL_GIT_DIR", "", "git repository holding research projects' central refs; empty: a database record"},
	{"GATEHOUSE_MAX_BODY_BYTES", "4194304", "request body limit (413 beyond)"},
	{"GATEHOUSE_LOG_LEVEL", "info", "debug, info, warn or error"},
	{"GATEHOUSE_SHUTDOWN_TIMEOUT", "20s", "graceful shutdown bound of the HTTP server"},
	{"GATEHOUSE_WORKER_STOP_TIMEOUT", "30s", "how long a stopping worker lets in-flight activities finish before cancelling them (keep the pod's termination grace period longer)"},
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "", "OTLP collector base URL; traces are exported when set (OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf, the default, or grpc)"},
	{"GATEHOUSE_LLM_UPSTREAM_URL", "", "OpenAI-compatible base URL (…/v1) behind the flywheel LLM gateway; empty: gateway answers 503"},
	{"GATEHOUSE_LLM_UPSTREAM_API_KEY", "", "bearer key sent to the LLM upstream"},
	{"GATEHOUSE_LLM_UPSTREAM_TIMEOUT", "10m", "longest one LLM gateway call may take, a streamed completion included (a call cut short counts nothing)"},
	{"GATEHOUSE_LLM_UPSTREAM_HEADER_TIMEOUT", "60s", "longest the LLM gateway waits for the upstream's first response byte"},
	{"GATEHOUSE_FLYWHEEL_LEASE_MIN", "5s", "shortest flywheel lease granted (claims are clamped)"},
	{"GATEHOUSE_FLYWHEEL_LEASE_MAX", "10m", "longest flywheel lease granted (claims are clamped)"},
	{"GATEHOUSE_BLOB_S3_ENDPOINT", "", "S3-compatible API base URL (empty: AWS)"},
	{"GATEHOUSE_BLOB_S3_BUCKET", "", "S3 bucket; when set, blobs live in S3 instead of GATEHOUSE_BLOB_DIR"},
	{"GATEHOUSE_BLOB_S3_REGION", "us-east-1", "S3 signing region"},
	{"GATEHOUSE_BLOB_S3_ACCESS_KEY_ID", "", "S3 access key id; with the secret empty too, the AWS default credential chain (AWS_* variables, IRSA, instance role)"},
	{"GATEHOUSE_BLOB_S3_SECRET_ACCESS_KEY", "", "S3 secret access key"},
	{"GATEHOUSE_BLOB_S3_PATH_STYLE", "true", "path-style S3 URLs (host/bucket/key); false: virtual-hosted (bucket.host/key)"},
	{"GATEHOUSE_STORAGE_RETENTION", "1440h", "how long unpinned storage objects stay available (60 days)"},
	{"GATEHOUSE_STORAGE_SWEEP_INTERVAL", "1h", "how often the storage sweep schedule runs"},
	{"GATEHOUSE_MLFLOW_TRACKING_URI", "", "MLflow tracking server base URL (mlflow.* tools)"},
	{"GATEHOUSE_SANDBOX_PROVIDERS", "local", "comma list of sandbox providers (local, kubernetes); the first is the default"},
	{"GATEHOUSE_SANDBOX_RUN_AS", "nobody", "user local sandbox commands run as when the worker is root (root: keep root); confined by bubblewrap either way"},
	{"GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND", "false", "true: where bubblewrap cannot confine local sandbox commands, run them unconfined as the worker's user, able to read its data directory and environment (single-user machine only); false: refuse to start them"},
	{"GATEHOUSE_SANDBOX_KUBE_NAMESPACE", "default", "namespace of kubernetes sandbox Pods"},
	{"GATEHOUSE_SANDBOX_KUBE_IMAGE", DefaultSandboxKubeImage, "kubernetes sandbox Pod image, pinned by tag or digest"},
	{"GATEHOUSE_SANDBOX_KUBE_AGENT_IMAGE", "", "Gatehouse image whose binary runs as the sandbox agent in each Pod, recording runs for sandbox.runs/terminal/pull_outputs; empty: the Pod image's own SSH server, no runs"},
	{"GATEHOUSE_SANDBOX_KUBECONFIG", "", "kubeconfig file of the kubernetes sandbox provider; empty: in-cluster service account"},
	{"GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT", "4", "most live sandboxes (provisioning, running, cleanup_pending) one project may hold, additional ones included"},
	{"GATEHOUSE_SANDBOX_MAX_GPUS_PER_PROJECT", "2", "most GPUs one project's live sandboxes may hold together"},
	{"GATEHOUSE_SANDBOX_MAX_LIFETIME", "24h", "longest a sandbox may live in total, every extend included (Pods also get activeDeadlineSeconds from it)"},
	{"GATEHOUSE_SANDBOX_REAP_INTERVAL", "10m", "how often the orphan reaper destroys sandbox Pods and local sandboxes no live workflow owns"},
}

// Names returns the names of every variable in Vars.
func Names() []string {
	names := make([]string, len(Vars))
	for i, v := range Vars {
		names[i] = v.Name
	}
	return names
}

// FromEnv reads the configuration from the process environment.
func FromEnv() (Config, error) { return FromLookup(os.LookupEnv) }

// FromLookup reads the configuration through lookup, so tests can pass a map.
func FromLookup(lookup func(string) (string, bool)) (Config, error) {
	r := reader{lookup: lookup}
	c := Config{
		HTTPAddr:    r.str("GATEHOUSE_HTTP_ADDR", "127.0.0.1:8080"),
		DatabaseURL: r.str("GATEHOUSE_DATABASE_URL", ""),
		DataDir:     r.str("GATEHOUSE_DATA_DIR", ".gatehouse"),
		DatabasePool: DatabasePool{MaxConns: int(r.integer("GATEHOUSE_DATABASE_MAX_CONNS", 16)),
			MaxIdleConns:    int(r.integer("GATEHOUSE_DATABASE_MAX_IDLE_CONNS", 16)),
			ConnMaxLifetime: r.duration("GATEHOUSE_DATABASE_CONN_MAX_LIFETIME", 30*time.Minute)},
		TemporalAddress:        r.str("GATEHOUSE_TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		TemporalNamespace:      r.str("GATEHOUSE_TEMPORAL_NAMESPACE", "default"),
		TemporalAPIKey:         r.str("GATEHOUSE_TEMPORAL_API_KEY", ""),
		TemporalTLSCert:        r.str("GATEHOUSE_TEMPORAL_TLS_CERT", ""),
		TemporalTLSKey:         r.str("GATEHOUSE_TEMPORAL_TLS_KEY", ""),
		TemporalUIURL:          r.str("GATEHOUSE_TEMPORAL_UI_URL", ""),
		TaskQueue:              r.str("GATEHOUSE_TASK_QUEUE", "gatehouse"),
		WorkerHealthAddr:       r.str("GATEHOUSE_WORKER_HEALTH_ADDR", ""),
		MetricsAddr:            r.str("GATEHOUSE_METRICS_ADDR", ""),
		WorkerHostID:           r.str("GATEHOUSE_WORKER_HOST_ID", ""),
		DevTemporalAddr:        r.str("GATEHOUSE_DEV_TEMPORAL_ADDR", "127.0.0.1:7233"),
		DevUIAddr:              r.str("GATEHOUSE_DEV_UI_ADDR", "127.0.0.1:8233"),
		DevAPIKey:              r.str("GATEHOUSE_DEV_API_KEY", ""),
		DevOperatorToken:       r.str("GATEHOUSE_DEV_OPERATOR_TOKEN", ""),
		BootstrapOperatorToken: r.str("GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN", ""),
		Features: Features{
			Storage:           r.boolean("GATEHOUSE_FEATURE_STORAGE", true),
			Sandboxes:         r.boolean("GATEHOUSE_FEATURE_SANDBOXES", true),
			Tracking:          r.boolean("GATEHOUSE_FEATURE_TRACKING", false),
			UnderscoreAliases: r.boolean("GATEHOUSE_MCP_UNDERSCORE_ALIASES", false),
		},
		MaxBodyBytes:      r.integer("GATEHOUSE_MAX_BODY_BYTES", 4<<20),
		LogLevel:          r.str("GATEHOUSE_LOG_LEVEL", "info"),
		ShutdownTimeout:   r.duration("GATEHOUSE_SHUTDOWN_TIMEOUT", 20*time.Second),
		WorkerStopTimeout: r.duration("GATEHOUSE_WORKER_STOP_TIMEOUT", 30*time.Second),
		OTLPEndpoint:      r.str("OTEL_EXPORTER_OTLP_ENDPOINT", ""),

		LLMUpstreamURL:           strings.TrimRight(r.str("GATEHOUSE_LLM_UPSTREAM_URL", ""), "/"),
		LLMUpstreamAPIKey:        r.str("GATEHOUSE_LLM_UPSTREAM_API_KEY", ""),
		LLMUpstreamTimeout:       r.duration("GATEHOUSE_LLM_UPSTREAM_TIMEOUT", 10*time.Minute),
		LLMUpstreamHeaderTimeout: r.duration("GATEHOUSE_LLM_UPSTREAM_HEADER_TIMEOUT", time.Minute),
		FlywheelLeaseMin:         r.duration("GATEHOUSE_FLYWHEEL_LEASE_MIN", 5*time.Second),
		FlywheelLeaseMax:         r.duration("GATEHOUSE_FLYWHEEL_LEASE_MAX", 10*time.Minute),

		BlobS3: BlobS3{Endpoint: strings.TrimRight(r.str("GATEHOUSE_BLOB_S3_ENDPOINT", ""), "/"), Bucket: r.str("GATEHOUSE_BLOB_S3_BUCKET", ""),
			Region: r.str("GATEHOUSE_BLOB_S3_REGION", "us-east-1"), AccessKeyID: r.str("GATEHOUSE_BLOB_S3_ACCESS_KEY_ID", ""),
			SecretAccessKey: r.str("GATEHOUSE_BLOB_S3_SECRET_ACCESS_KEY", ""), VirtualHostedStyle: !r.boolean("GATEHOUSE_BLOB_S3_PATH_STYLE", true)},
		StorageRetention:     r.duration("GATEHOUSE_STORAGE_RETENTION", 60*24*time.Hour),
		StorageSweepInterval: r.duration("GATEHOUSE_STORAGE_SWEEP_INTERVAL", time.Hour),
		MLflowTrackingURI:    strings.TrimRight(r.str("GATEHOUSE_MLFLOW_TRACKING_URI", ""), "/"),
		Sandbox: Sandbox{RunAs: r.str("GATEHOUSE_SANDBOX_RUN_AS", "nobody"), KubeNamespace: r.str("GATEHOUSE_SANDBOX_KUBE_NAMESPACE", "default"),
			KubeImage: r.str("GATEHOUSE_SANDBOX_KUBE_IMAGE", DefaultSandboxKubeImage), Kubeconfig: r.str("GATEHOUSE_SANDBOX_KUBECONFIG", ""),
			KubeAgentImage: r.str("GATEHOUSE_SANDBOX_KUBE_AGENT_IMAGE", "")},
	}
	c.Sandbox.UnisolatedIUnderstand = r.boolean("GATEHOUSE_SANDBOX_UNISOLATED_I_UNDERSTAND", false)
	c.Sandbox.MaxLivePerProject = int(r.integer("GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT", 4))
	c.Sandbox.MaxGPUsPerProject = int(r.integer("GATEHOUSE_SANDBOX_MAX_GPUS_PER_PROJECT", 2))
	c.Sandbox.MaxLifetime = r.duration("GATEHOUSE_SANDBOX_MAX_LIFETIME", 24*time.Hour)
	c.Sandbox.ReapInterval = r.duration("GATEHOUSE_SANDBOX_REAP_INTERVAL", 10*time.Minute)
	c.BlobDir = r.str("GATEHOUSE_BLOB_DIR", filepath.Join(c.DataDir, "blobs"))
	c.CentralGitDir = r.str("GATEHOUSE_CENTRAL_GIT_DIR", "")
	c.PublicURL = strings.TrimRight(r.str("GATEHOUSE_PUBLIC_URL", ""), "/")
	c.MCPAllowedHosts = commaList(r.str("GATEHOUSE_MCP_ALLOWED_HOSTS", ""))
	if r.err != nil {
		return Config{}, r.err
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + displayHost(c.HTTPAddr)
	}
	if c.FlywheelLeaseMin <= 0 || c.FlywheelLeaseMax < c.FlywheelLeaseMin {
		return Config{}, fmt.Errorf("GATEHOUSE_FLYWHEEL_LEASE_MIN must be positive and at most GATEHOUSE_FLYWHEEL_LEASE_MAX")
	}
	if c.StorageRetention <= 0 || c.StorageSweepInterval <= 0 {
		return Config{}, fmt.Errorf("GATEHOUSE_STORAGE_RETENTION and GATEHOUSE_STORAGE_SWEEP_INTERVAL must be positive")
	}
	if c.WorkerStopTimeout < 0 {
		return Config{}, fmt.Errorf("GATEHOUSE_WORKER_STOP_TIMEOUT must not be negative")
	}
	if c.MaxBodyBytes <= 0 {
		return Config{}, fmt.Errorf("GATEHOUSE_MAX_BODY_BYTES must be positive")
	}
	if sb := c.Sandbox; sb.MaxLivePerProject < 1 || sb.MaxGPUsPerProject < 0 || sb.MaxLifetime < time.Minute || sb.ReapInterval < time.Minute {
		return Config{}, fmt.Errorf("GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT must be at least 1, _MAX_GPUS_PER_PROJECT not negative, _MAX_LIFETIME and _REAP_INTERVAL at least 1m")
	}
	var err error
	if c.Sandbox.Providers, err = sandboxProviders(r.str("GATEHOUSE_SANDBOX_PROVIDERS", "local")); err != nil {
		return Config{}, err
	}
	return c, nil
}

// sandboxProviders parses the comma list of GATEHOUSE_SANDBOX_PROVIDERS:
// known names only, each once, at least one.
func sandboxProviders(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(SandboxProviderNames, name) {
			return nil, fmt.Errorf("GATEHOUSE_SANDBOX_PROVIDERS: unknown sandbox provider %q (known: %s)", name, strings.Join(SandboxProviderNames, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("GATEHOUSE_SANDBOX_PROVIDERS: name at least one provider (known: %s)", strings.Join(SandboxProviderNames, ", "))
	}
	return out, nil
}

// commaList splits a comma list, dropping blanks.
func commaList(list string) []string {
	var out []string
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// displayHost turns a listen address such as ":8080" into one a client can use.
func displayHost(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// reader collects the first parse error so FromLookup reads linearly.
type reader struct {
	lookup func(string) (string, bool)
	err    error
}

func (r *reader) str(name, def string) string {
	if v, ok := r.lookup(name); ok && v != "" {
		return v
	}
	return def
}

func (r *reader) boolean(name string, def bool) bool {
	v, ok := r.lookup(name)
	if !ok || v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not a boolean", name, v)
	}
	return b
}

func (r *reader) integer(name string, def int64) int64 {
	v, ok := r.lookup(name)
	if !ok || v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not an integer", name, v)
	}
	return n
}

func (r *reader) duration(name string, def time.Duration) time.Duration {
	v, ok := r.lookup(name)
	if !ok || v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %q is not a duration", name, v)
	}
	return d
}
