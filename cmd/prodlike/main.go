// Command prodlike runs Gatehouse in its production topology on one
// machine (see internal/prodlike): `prodlike up` starts it and serves until
// SIGINT or SIGTERM, writing where everything is to <dir>/state.json.
// scripts/prodlike wraps it as up | down | status.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gatehouse/gatehouse/internal/prodlike"
)

// State is what `prodlike up` writes for scripts and people to find the stack.
type State struct {
	PID             int      `json:"pid"`
	FrontURL        string   `json:"front_url"`
	APIURLs         []string `json:"api_urls"`
	TemporalAddress string   `json:"temporal_address"`
	DatabaseURL     string   `json:"database_url"`
	OperatorToken   string   `json:"operator_token"`
	AgentKey        string   `json:"agent_key"`
	Logs            string   `json:"logs"`
}

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "build" {
		build(os.Args[2:])
		return
	}
	if len(os.Args) < 2 || os.Args[1] != "up" {
		fmt.Fprintln(os.Stderr, "usage: prodlike up [flags] | prodlike build --bin-dir DIR   (scripts/prodlike up|down|status wraps it)")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	dir := fs.String("dir", ".prodlike", "state directory: binaries, config, logs")
	pg := fs.String("postgres", envOr("GATEHOUSE_PRODLIKE_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "administrative PostgreSQL URL")
	apis := fs.Int("apis", 2, "api replicas")
	workers := fs.Int("workers", 2, "worker replicas")
	name := fs.String("name", "prodlike", "database name prefix")
	_ = fs.Parse(os.Args[2:])
	if err := up(*dir, *pg, *name, *apis, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "prodlike:", err)
		os.Exit(1)
	}
}

// build compiles the Temporal server and SQL tool into --bin-dir (the
// test tools cache), so tests and `up` find them ready.
func build(args []string) {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	binDir := fs.String("bin-dir", ".prodlike/bin", "where the Temporal binaries go")
	_ = fs.Parse(args)
	root, err := os.Getwd()
	if err == nil {
		var b prodlike.Binaries
		if b, err = prodlike.BuildTemporal(context.Background(), root, *binDir); err == nil {
			fmt.Println(b.Server)
			fmt.Println(b.SQLTool)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "prodlike build:", err)
	os.Exit(1)
}

func up(dir, pg, name string, apis, workers int) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	dir, _ = filepath.Abs(dir)
	gatehouse := filepath.Join(dir, "bin", "gatehouse")
	fmt.Println("building gatehouse and the Temporal server (the first build takes minutes)…")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", gatehouse, "./cmd/gatehouse").CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/gatehouse: %w\n%s", err, out)
	}
	s, err := prodlike.Start(ctx, prodlike.Options{
		ModuleDir: root, Dir: dir, PostgresURL: pg, Name: name, APIs: apis, Workers: workers,
		Gatehouse: func(role string) prodlike.Command { return prodlike.Command{Path: gatehouse, Args: []string{role}} },
	})
	if err != nil {
		return err
	}
	defer s.Stop()
	key, err := mintAgentKey(ctx, s.Front.URL, s.OperatorToken)
	if err != nil {
		return err
	}
	st := State{PID: os.Getpid(), FrontURL: s.Front.URL, APIURLs: s.APIURLs, TemporalAddress: s.TemporalAddress,
		DatabaseURL: s.DatabaseURL, OperatorToken: s.OperatorToken, AgentKey: key, Logs: dir}
	raw, _ := json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "state.json"), raw, 0o600); err != nil {
		return err
	}
	fmt.Printf("production topology up: %s (%d api, %d workers)\n%s\n", s.Front.URL, apis, workers, raw)
	<-ctx.Done()
	_ = os.Remove(filepath.Join(dir, "state.json"))
	fmt.Println("stopping…")
	return nil
}

// mintAgentKey asks the api (through the front) for an agent key with
// access to every project, as an operator would.
func mintAgentKey(ctx context.Context, front, operatorToken string) (string, error) {
	body, _ := json.Marshal(map[string]any{"role": "agent", "name": "prodlike agent", "all_projects": true})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front+"/operator/v1/keys", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+operatorToken)
	req.Header.Set("Content-Type", "application/json")
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }() // read only: a close error loses nothing
	var out struct {
		Plaintext string `json:"plaintext"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Plaintext == "" {
		return "", errors.New("minting the agent key failed: " + resp.Status)
	}
	return out.Plaintext, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
