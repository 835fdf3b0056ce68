package prodlike

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Options configure a production-topology stack.
type Options struct {
	// ModuleDir is the repository root (where go.mod is); the Temporal
	// binaries are built from it.
	ModuleDir string
	// Dir holds the stack's configuration, logs and worker data; required.
	Dir string
	// BinDir keeps the built Temporal binaries across stacks (default Dir/bin).
	BinDir string
	// PostgresURL is an administrative URL of the PostgreSQL server the
	// stack creates its three databases on.
	PostgresURL string
	// Name prefixes the databases; stacks running at once need distinct names.
	Name string
	// APIs and Workers are the replica counts (default 2 and 2).
	APIs, Workers int
	// HistoryShards is Temporal's shard count (default 4).
	HistoryShards int
	// Retention is the namespace's retention of closed workflows (default 72h).
	Retention time.Duration
	// Namespace is the Temporal namespace (default "default").
	Namespace string
	// TemporalMaxConns bounds the Temporal server's default store pool
	// (default 20, as in its development-postgres12 configuration; its
	// visibility pool is a fifth of it, at least 2).
	TemporalMaxConns int
	// Gatehouse says how to run a Gatehouse role ("migrate", "api", "worker").
	Gatehouse func(role string) Command
	// Env is added to every Gatehouse role's environment (KEY=VALUE).
	Env []string
	// KeepDatabases leaves the databases in place on Stop.
	KeepDatabases bool
}

// Stack is a running production topology.
type Stack struct {
	// Front is the round-robin entry point every client should use.
	Front *Front
	// APIs and Workers are the Gatehouse replicas, in start order.
	APIs, Workers []*Proc
	// APIURLs are the replicas' own base URLs, behind the front.
	APIURLs []string
	// APIMetricsURLs are the replicas' /metrics, served apart from the
	// public API (GATEHOUSE_METRICS_ADDR), in the order of APIURLs.
	APIMetricsURLs []string
	// TemporalAddress and Namespace locate the Temporal frontend.
	TemporalAddress, Namespace string
	// Temporal is the Temporal server process.
	Temporal *Proc
	// TemporalPprof is the host:port of the Temporal server's pprof.
	TemporalPprof string
	// DatabaseURL is Gatehouse's PostgreSQL database.
	DatabaseURL string
	// DatabasePrefix begins the name of each of the stack's databases
	// (<prefix>_temporal, <prefix>_temporal_vis, <prefix>_gatehouse).
	DatabasePrefix string
	// OperatorToken is the bootstrap operator token the api replicas store.
	OperatorToken string

	opts      Options
	pg        postgres
	s3        *s3Store
	roleEnv   []string
	databases []string
}

func (o *Options) defaults() error {
	if o.Dir == "" || o.PostgresURL == "" || o.Gatehouse == nil || o.ModuleDir == "" {
		return errors.New("prodlike: Dir, ModuleDir, PostgresURL and Gatehouse are required")
	}
	if !databaseName.MatchString(o.Name + "_temporal_vis") {
		return fmt.Errorf("prodlike: name %q must be lower-case letters, digits and _", o.Name)
	}
	if o.BinDir == "" {
		o.BinDir = filepath.Join(o.Dir, "bin")
	}
	if o.APIs == 0 {
		o.APIs = 2
	}
	if o.Workers == 0 {
		o.Workers = 2
	}
	if o.HistoryShards == 0 {
		o.HistoryShards = 4
	}
	if o.Retention == 0 {
		o.Retention = 72 * time.Hour
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.TemporalMaxConns == 0 {
		o.TemporalMaxConns = 20
	}
	return nil
}

// Start builds what is missing and starts, in order: the S3 store, the
// Temporal server on its PostgreSQL databases (schema by Temporal's SQL
// tool), `gatehouse migrate`, the api and worker replicas, and the front.
// On error everything started is stopped again.
func Start(ctx context.Context, opts Options) (*Stack, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, err
	}
	pg, err := newPostgres(opts.PostgresURL)
	if err != nil {
		return nil, err
	}
	s := &Stack{opts: opts, pg: pg, Namespace: opts.Namespace, DatabasePrefix: opts.Name}
	if err := s.start(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Stack) start(ctx context.Context) error {
	bins, err := BuildTemporal(ctx, s.opts.ModuleDir, s.opts.BinDir)
	if err != nil {
		return err
	}
	if s.s3, err = startS3("gatehouse"); err != nil {
		return err
	}
	s.databases = []string{s.opts.Name + "_temporal", s.opts.Name + "_temporal_vis", s.opts.Name + "_gatehouse"}
	temporal, err := startTemporal(ctx, bins, s.pg, s.opts.Dir, s.opts.Name, s.opts.Namespace,
		temporalShape{shards: s.opts.HistoryShards, retention: s.opts.Retention, maxConns: s.opts.TemporalMaxConns})
	if err != nil {
		return err
	}
	s.Temporal, s.TemporalAddress, s.TemporalPprof = temporal.proc, temporal.address, temporal.pprof
	if err := s.pg.create(ctx, s.databases[2]); err != nil {
		return err
	}
	s.DatabaseURL = s.pg.url(s.databases[2])
	if s.Front, err = listenFront(); err != nil {
		return err
	}
	s.OperatorToken = "op_" + randomHex(24)
	s.roleEnv = append([]string{
		"GATEHOUSE_DATABASE_URL=" + s.DatabaseURL,
		"GATEHOUSE_TEMPORAL_ADDRESS=" + s.TemporalAddress,
		"GATEHOUSE_TEMPORAL_NAMESPACE=" + s.opts.Namespace,
		"GATEHOUSE_PUBLIC_URL=" + s.Front.URL,
		"GATEHOUSE_BOOTSTRAP_OPERATOR_TOKEN=" + s.OperatorToken,
		podCoresEnv(),
	}, s.s3.env()...)
	s.roleEnv = append(s.roleEnv, s.opts.Env...)
	if err := s.migrate(ctx); err != nil {
		return err
	}
	for i := 0; i < s.opts.APIs; i++ {
		if err := s.startAPI(ctx, i); err != nil {
			return err
		}
	}
	for i := 0; i < s.opts.Workers; i++ {
		if err := s.startWorker(ctx, i); err != nil {
			return err
		}
	}
	return s.Front.serve(s.APIURLs)
}

func (s *Stack) migrate(ctx context.Context) error {
	p, err := startProc("migrate", filepath.Join(s.opts.Dir, "migrate.log"), s.opts.Gatehouse("migrate"), s.roleEnv)
	if err != nil {
		return err
	}
	if !p.Wait(2 * time.Minute) {
		p.Kill()
		return errors.New("prodlike: gatehouse migrate did not finish in 2 minutes")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("prodlike: gatehouse migrate exited %d (log: %s)", code, p.Log)
	}
	return nil
}

func (s *Stack) startAPI(ctx context.Context, i int) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	addr, metrics := loopback(ports[0]), loopback(ports[1])
	name := "api-" + strconv.Itoa(i)
	p, err := startProc(name, filepath.Join(s.opts.Dir, name+".log"), s.opts.Gatehouse("api"),
		append(append([]string{}, s.roleEnv...), "GATEHOUSE_HTTP_ADDR="+addr, "GATEHOUSE_METRICS_ADDR="+metrics,
			"GATEHOUSE_DATA_DIR="+filepath.Join(s.opts.Dir, name)))
	if err != nil {
		return err
	}
	s.APIs = append(s.APIs, p)
	s.APIURLs = append(s.APIURLs, "http://"+addr)
	s.APIMetricsURLs = append(s.APIMetricsURLs, "http://"+metrics+"/metrics")
	return waitHTTP(ctx, p, "http://"+addr+"/readyz")
}

func (s *Stack) startWorker(ctx context.Context, i int) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	addr := loopback(ports[0])
	name := "worker-" + strconv.Itoa(i)
	p, err := startProc(name, filepath.Join(s.opts.Dir, name+".log"), s.opts.Gatehouse("worker"),
		append(append([]string{}, s.roleEnv...), "GATEHOUSE_WORKER_HEALTH_ADDR="+addr,
			"GATEHOUSE_WORKER_HOST_ID="+s.opts.Name+"-"+name, "GATEHOUSE_DATA_DIR="+filepath.Join(s.opts.Dir, name)))
	if err != nil {
		return err
	}
	s.Workers = append(s.Workers, p)
	return waitHTTP(ctx, p, "http://"+addr+"/readyz")
}

// Stop ends every process (gracefully, then by force), the front and the
// S3 store, and drops the databases unless KeepDatabases is set.
func (s *Stack) Stop() {
	if s.Front != nil {
		s.Front.close()
	}
	for _, p := range append(append([]*Proc{}, s.APIs...), s.Workers...) {
		_ = p.Terminate(15 * time.Second)
	}
	if s.Temporal != nil {
		_ = s.Temporal.Terminate(15 * time.Second)
	}
	if s.s3 != nil {
		s.s3.close()
	}
	if s.opts.KeepDatabases {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, db := range s.databases {
		_ = s.pg.drop(ctx, db)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
