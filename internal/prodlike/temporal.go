package prodlike

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/protobuf/types/known/durationpb"

	wf "github.com/gatehouse/gatehouse/workflows/platform"
)

// temporalServer is a Temporal server process (all four services in one
// process, as a single-node cluster) persisting to the stack's databases.
type temporalServer struct {
	proc    *Proc
	address string
	pprof   string
}

// Temporal's own schemas, embedded in its SQL tool.
var temporalSchemas = []struct{ suffix, schema string }{
	{"_temporal", "postgresql/v12/temporal"},
	{"_temporal_vis", "postgresql/v12/visibility"},
}

// startTemporal creates the server's two databases with Temporal's SQL
// tool, starts the server and registers namespace (with retention) and
// Gatehouse's search attributes.
// temporalShape sizes the server: history shards, the namespace's
// retention, and its PostgreSQL pool.
type temporalShape struct {
	shards    int
	retention time.Duration
	maxConns  int
}

func startTemporal(ctx context.Context, bins Binaries, pg postgres, dir, prefix, namespace string, shape temporalShape) (*temporalServer, error) {
	for _, s := range temporalSchemas {
		name := prefix + s.suffix
		if err := pg.create(ctx, name); err != nil {
			return nil, err
		}
		if err := sqlTool(ctx, bins, pg, name, "setup-schema", "-v", "0.0"); err != nil {
			return nil, err
		}
		if err := sqlTool(ctx, bins, pg, name, "update-schema", "--schema-name", s.schema); err != nil {
			return nil, err
		}
	}
	ports, err := freePorts(temporalPortCount)
	if err != nil {
		return nil, err
	}
	tp := newTemporalPorts(ports)
	path, err := writeTemporalConfig(dir, temporalConfig{Ports: tp, Host: pg.host(), Port: pg.port(), User: pg.user(),
		Password: pg.password(), Database: prefix + temporalSchemas[0].suffix, Visibility: prefix + temporalSchemas[1].suffix,
		Shards: shape.shards, MaxConns: shape.maxConns, VisibilityMaxConns: max(2, shape.maxConns/5)})
	if err != nil {
		return nil, err
	}
	proc, err := startProc("temporal", filepath.Join(dir, "temporal.log"),
		Command{Path: bins.Server, Args: []string{"--config-file", path, "--allow-no-auth", "start"}}, nil)
	if err != nil {
		return nil, err
	}
	t := &temporalServer{proc: proc, address: loopback(tp.Frontend), pprof: loopback(tp.Pprof)}
	if err := t.prepareNamespace(ctx, namespace, shape.retention); err != nil {
		proc.Kill()
		return nil, fmt.Errorf("%w (server log: %s)", err, proc.Log)
	}
	if err := t.restartAsCluster(ctx, dir, namespace); err != nil {
		proc.Kill()
		return nil, fmt.Errorf("%w (server log: %s)", err, proc.Log)
	}
	return t, nil
}

// restartAsCluster restarts the server, once its namespace and search
// attributes are stored, with the dynamic config a cluster runs, and
// waits until it serves them from its caches.
func (t *temporalServer) restartAsCluster(ctx context.Context, dir, namespace string) error {
	if err := t.proc.Terminate(20 * time.Second); err != nil {
		return fmt.Errorf("prodlike: stop the bootstrap Temporal server: %w", err)
	}
	if err := writeDynamicConfig(dir, temporalDynamicConfig); err != nil {
		return err
	}
	if err := t.proc.Start(); err != nil {
		return fmt.Errorf("prodlike: restart the Temporal server: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c, err := t.dial(ctx, namespace)
	if err != nil {
		return err
	}
	defer c.Close()
	return retry(ctx, func() error { return searchAttributesVisible(ctx, c, namespace) })
}

func sqlTool(ctx context.Context, bins Binaries, pg postgres, db string, args ...string) error {
	base := []string{"--plugin", "postgres12", "--ep", pg.host(), "-p", pg.port(), "-u", pg.user(), "--db", db}
	if pw := pg.password(); pw != "" {
		base = append(base, "--pw", pw)
	}
	out, err := exec.CommandContext(ctx, bins.SQLTool, append(base, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("prodlike: temporal-sql-tool %v on %s: %w\n%s", args, db, err, out)
	}
	return nil
}

// prepareNamespace waits for the frontend, registers the namespace and
// the search attributes, and returns once both are visible.
func (t *temporalServer) prepareNamespace(ctx context.Context, namespace string, retention time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c, err := t.dial(ctx, namespace)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: namespace, WorkflowExecutionRetentionPeriod: durationpb.New(retention)})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("prodlike: register namespace %s: %w", namespace, err)
	}
	return retry(ctx, func() error {
		_, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
			Namespace: namespace, SearchAttributes: wf.SearchAttributes()})
		var already *serviceerror.AlreadyExists
		if err != nil && !errors.As(err, &already) {
			return err
		}
		return searchAttributesVisible(ctx, c, namespace)
	})
}

// searchAttributesVisible checks that the server lists every Gatehouse
// search attribute of namespace.
func searchAttributesVisible(ctx context.Context, c client.Client, namespace string) error {
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return err
	}
	for name := range wf.SearchAttributes() {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			return fmt.Errorf("search attribute %s not visible yet", name)
		}
	}
	return nil
}

// dial connects to the frontend once it answers its health check.
func (t *temporalServer) dial(ctx context.Context, namespace string) (client.Client, error) {
	var c client.Client
	err := retry(ctx, func() error {
		if !t.proc.Running() {
			return errStopped
		}
		var err error
		c, err = client.Dial(client.Options{HostPort: t.address, Namespace: namespace, Logger: quietLogger()})
		return err
	})
	return c, err
}

var errStopped = errors.New("prodlike: the Temporal server exited")

// retry calls f every 250 ms until it succeeds, ctx ends, or f reports
// that the server stopped.
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil || errors.Is(err, errStopped) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("prodlike: %w (last error: %v)", ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}
