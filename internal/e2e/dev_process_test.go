package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/config"
)

// The dev benchmarks run gatehouse dev as a process of its own, as a user
// runs it and as the issue measured it ("load generator on loopback"): the
// plain lease server beside it is a process of its own too, so neither
// side's latency carries the load generator's garbage collections or its
// goroutines, and the dev process's memory is its own.
const (
	// devServerRole is the child role that runs gatehouse dev.
	devServerRole = "dev"
	// devListening prefixes the line on which the dev process names its
	// API's base URL.
	devListening = "dev listening on "
)

// serveDevProcess is the dev process: it starts the whole dev stack, names
// its API on stdout and runs until ctx ends.
func serveDevProcess(ctx context.Context, cfg config.Config) error {
	app.TuneDevCollector()
	dev, err := app.StartDev(ctx, cfg, app.DevOptions{QuietTemporal: true})
	if err != nil {
		return err
	}
	fmt.Println(devListening + dev.APIURL)
	<-ctx.Done()
	return dev.Close()
}

// devProcess is gatehouse dev running in a child process.
type devProcess struct {
	*Stack
	proc *Process
}

// benchDevEnvEnv, when set, is more environment for the dev process a
// benchmark starts, as space-separated NAME=VALUE pairs, so a runtime
// setting is measured on the dev process alone, not on the load
// generator or the plain lease server beside it: GOGC=100 measures Go's
// default collector target in place of app.DevGCPercent, GOMAXPROCS=3 an
// oversubscribed scheduler.
const benchDevEnvEnv = "GATEHOUSE_BENCH_DEV_ENV"

// startDevProcess starts gatehouse dev (SQLite, embedded Temporal, api and
// worker) in a child process on a fresh data directory, with credentials
// fixed up front so this process can use them.
func startDevProcess(b *testing.B) devProcess {
	b.Helper()
	dir := b.TempDir()
	env := map[string]string{
		"GATEHOUSE_DATA_DIR":           dir,
		"GATEHOUSE_DATABASE_URL":       "",
		"GATEHOUSE_HTTP_ADDR":          "127.0.0.1:0",
		"GATEHOUSE_DEV_TEMPORAL_ADDR":  "127.0.0.1:0",
		"GATEHOUSE_DEV_UI_ADDR":        "",
		"GATEHOUSE_LOG_LEVEL":          "warn",
		"GATEHOUSE_SHUTDOWN_TIMEOUT":   "5s",
		"GATEHOUSE_DEV_API_KEY":        "mk_" + randomHex(b),
		"GATEHOUSE_DEV_OPERATOR_TOKEN": "op_" + randomHex(b),
	}
	for _, pair := range strings.Fields(os.Getenv(benchDevEnvEnv)) {
		name, value, ok := strings.Cut(pair, "=")
		if !ok {
			b.Fatalf("%s: %q is not NAME=VALUE", benchDevEnvEnv, pair)
		}
		env[name] = value
	}
	p := StartRoleProcess(b, devServerRole, env)
	url := p.awaitLine(b, devListening, 2*time.Minute)
	if url == "" {
		b.Fatalf("gatehouse dev did not start: %s", p.Output())
	}
	dev := &app.DevStack{APIURL: url, APIKey: env["GATEHOUSE_DEV_API_KEY"], OperatorToken: env["GATEHOUSE_DEV_OPERATOR_TOKEN"]}
	return devProcess{Stack: &Stack{DevStack: dev, DataDir: dir, Env: env, t: b}, proc: p}
}

// pid is the dev process's id.
func (d devProcess) pid() int { return d.proc.cmd.Process.Pid }

// randomHex is 32 random bytes in hex: the secret part of a dev credential.
func randomHex(b testing.TB) string {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		b.Fatal(err)
	}
	return hex.EncodeToString(raw)
}
