package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdklog "go.temporal.io/sdk/log"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/prodlike"
	"github.com/gatehouse/gatehouse/models"
)

// prodStack is the production topology (internal/prodlike) seen through
// the e2e helpers: its Stack's APIURL is the round-robin front, so every
// helper that takes a *Stack drives the production shape unchanged.
type prodStack struct {
	*Stack
	Prod *prodlike.Stack
}

// startProdStack starts a real Temporal server on PostgreSQL, Gatehouse on
// PostgreSQL, 2 api and 2 worker processes (this test binary in a child
// role), a gofakes3 store and the front; it stops when the test ends. env
// (KEY=VALUE) is added to every role's environment.
// Without GATEHOUSE_TEST_DATABASE_URL it skips outside CI and fails in CI.
func startProdStack(t testing.TB, env ...string) *prodStack {
	t.Helper()
	base := os.Getenv("GATEHOUSE_TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("GATEHOUSE_TEST_DATABASE_URL is not set; CI must provide PostgreSQL")
		}
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	p, err := prodlike.Start(ctx, prodlike.Options{
		ModuleDir: root, Dir: dir, BinDir: filepath.Join(toolsDir(), "temporal"),
		PostgresURL: base, Name: "e2e_" + hex.EncodeToString(suffix),
		Gatehouse: childRoleCommand,
		// The e2e package runs other PostgreSQL-backed tests beside this
		// stack, so its pools are smaller than production's (4 × 8 + 12);
		// env may restore them (later entries win).
		TemporalMaxConns: 10,
		Env:              append([]string{"GATEHOUSE_SHUTDOWN_TIMEOUT=10s", "GATEHOUSE_DATABASE_MAX_CONNS=8", "GATEHOUSE_DATABASE_MAX_IDLE_CONNS=8"}, env...),
	})
	if err != nil {
		t.Fatalf("start production topology: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			logTails(t, p)
		}
		p.Stop()
	})
	ps := &prodStack{Prod: p, Stack: &Stack{DevStack: &app.DevStack{APIURL: p.Front.URL, TemporalAddr: p.TemporalAddress,
		OperatorToken: p.OperatorToken}, t: t}}
	ps.APIKey = mintAgentKey(t, ps.Stack, "e2e agent", true)
	return ps
}

// childRoleCommand runs a Gatehouse role as this test binary (runChildRole).
func childRoleCommand(role string) prodlike.Command {
	return prodlike.Command{Path: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{childRoleEnv + "=" + role}}
}

// toolsDir is the cache scripts/install-test-tools fills.
func toolsDir() string {
	if d := os.Getenv("GATEHOUSE_TOOLS_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "gatehouse-tools")
}

// db opens Gatehouse's PostgreSQL database of the stack.
func (p *prodStack) db(t *testing.T) *gorm.DB {
	t.Helper()
	db, err := models.Open(p.Prod.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return db
}

// quietSDKLogger keeps a test's own Temporal client from logging.
func quietSDKLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// logTails prints the end of every process log of a failed test.
func logTails(t testing.TB, p *prodlike.Stack) {
	procs := append(append([]*prodlike.Proc{p.Temporal}, p.APIs...), p.Workers...)
	for _, proc := range procs {
		raw, err := os.ReadFile(proc.Log)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		t.Logf("--- %s (%s), last lines:\n%s", proc.Name, proc.Log, strings.Join(lines, "\n"))
	}
}

// pids are the current process ids of procs.
func pids(procs []*prodlike.Proc) []int {
	out := make([]int, 0, len(procs))
	for _, p := range procs {
		out = append(out, p.Pid())
	}
	return out
}
