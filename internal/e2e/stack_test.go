package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/devserver"
)

// Stack is a running dev stack for one or more tests.
type Stack struct {
	*app.DevStack
	DataDir string
	// Env is the configuration the stack was started with.
	Env map[string]string
	t   testing.TB
}

// StackOptions adjust the configuration of a stack.
type StackOptions struct {
	// DataDir reuses a data directory (restart tests); empty makes a new one.
	DataDir string
	// Env overrides configuration variables (GATEHOUSE_*).
	Env map[string]string
	// UI starts the embedded Temporal Web UI.
	UI bool
	// NoWorker starts no in-process worker; use StartWorkerProcess.
	NoWorker bool
}

// StartStack starts a dev stack on free loopback ports; it stops when the
// test ends unless the caller closes it first.
func StartStack(t testing.TB, opts StackOptions) *Stack {
	t.Helper()
	dir := opts.DataDir
	if dir == "" {
		dir = t.TempDir()
	}
	env := map[string]string{
		"GATEHOUSE_DATA_DIR":          dir,
		"GATEHOUSE_HTTP_ADDR":         "127.0.0.1:0",
		"GATEHOUSE_DEV_TEMPORAL_ADDR": "127.0.0.1:0",
		"GATEHOUSE_DEV_UI_ADDR":       "",
		"GATEHOUSE_LOG_LEVEL":         "warn",
		"GATEHOUSE_SHUTDOWN_TIMEOUT":  "5s",
	}
	if opts.UI {
		env["GATEHOUSE_DEV_UI_ADDR"] = "127.0.0.1:0"
	}
	for k, v := range opts.Env {
		env[k] = v
	}
	cfg, err := config.FromLookup(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if !opts.UI {
		cfg.DevUIAddr = ""
	}
	// A free port is picked, released and then bound, so a parallel test
	// can take it in between: start again, with fresh ports, when it did.
	start := func() (*app.DevStack, error) {
		return app.StartDev(context.Background(), cfg, app.DevOptions{LogOutput: stackLogs(t), QuietTemporal: true, NoWorker: opts.NoWorker})
	}
	dev, err := start()
	for attempt := 1; attempt < 3 && err != nil && errors.Is(err, devserver.ErrPortInUse); attempt++ {
		t.Logf("start dev stack, attempt %d: %v; retrying", attempt, err)
		dev, err = start()
	}
	if err != nil {
		t.Fatalf("start dev stack: %v", err)
	}
	s := &Stack{DevStack: dev, DataDir: dir, Env: env, t: t}
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { _ = dev.Close() }) })
	return s
}

var (
	sharedOnce  sync.Once
	sharedStack *Stack
	sharedErr   error
)

// Shared returns one stack shared by every test in the package that does
// not need a stack of its own (started on first use, stopped by TestMain).
func Shared(t testing.TB) *Stack {
	t.Helper()
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gatehouse-e2e-")
		if err != nil {
			sharedErr = err
			return
		}
		st := &sharedT{TB: t, dir: dir}
		defer func() {
			if r := recover(); r != nil {
				sharedErr = errFromPanic(r)
			}
		}()
		sharedStack = StartStack(st, StackOptions{DataDir: dir})
	})
	if sharedErr != nil {
		t.Fatalf("shared stack: %v", sharedErr)
	}
	return sharedStack
}

// Client dials the stack's Temporal frontend.
func (s *Stack) Client(t testing.TB) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: s.TemporalAddr, Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Response is a decoded HTTP answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %d body %q: %v", r.Status, truncate(r.Body), err)
	}
}

// Do sends a request with an optional bearer token and JSON body (a string,
// []byte, or any value to marshal).
func (s *Stack) Do(t testing.TB, method, path, token string, body any, headers ...string) Response {
	t.Helper()
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = bytes.NewBufferString(b)
	case []byte:
		rdr = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rdr = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.APIURL+path, rdr)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rdr != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	hc := &http.Client{Timeout: 60 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	recordExchange(req, body, out)
	return out
}

func truncate(b []byte) string {
	if len(b) > 500 {
		return string(b[:500]) + "…"
	}
	return string(b)
}
