package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models"
)

// The plain SKIP LOCKED lease server runs as a process of its own on the
// production topology's benchmarks, as the issue's baseline did ("one
// process", the load generator apart on loopback): each api replica is a
// process of its own too, so both sides pay the same cross-process
// wake-ups, and their CPU per request is metered apart from the load
// generator's.
const (
	// baselineServerRole is the child role that serves the baseline.
	baselineServerRole = "skiplocked-baseline"
	// baselineDatabaseEnv is the baseline process's PostgreSQL URL (its
	// schema in search_path).
	baselineDatabaseEnv = "GATEHOUSE_E2E_BASELINE_DATABASE_URL"
	// baselineListening prefixes the line on which the baseline process
	// names its address.
	baselineListening = "baseline listening on "
)

// serveBaselineProcess is the baseline server's process: it serves
// baselineMux on a loopback port, names the port on stdout, and runs
// until ctx ends.
func serveBaselineProcess(ctx context.Context) error {
	db, err := models.Open(os.Getenv(baselineDatabaseEnv))
	if err != nil {
		return err
	}
	defer closeGorm(db)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: baselineMux(db), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Println(baselineListening + l.Addr().String())
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// startSkipLockedProcess fills a fresh schema with n queued rows and
// serves the baseline on it from a process of its own.
func startSkipLockedProcess(b *testing.B, n int) skipLockedQueue {
	b.Helper()
	url, q := newSkipLockedSchema(b, n)
	p := StartRoleProcess(b, baselineServerRole, map[string]string{baselineDatabaseEnv: url})
	addr := p.awaitLine(b, baselineListening, 30*time.Second)
	if addr == "" {
		b.Fatalf("the baseline server did not start: %s", p.Output())
	}
	q.URL, q.pid = "http://"+addr, p.cmd.Process.Pid
	return q
}
