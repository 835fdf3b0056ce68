package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeFlywheel serves the four flywheel routes the generator uses and
// counts what it was sent; every rollout's token is checked.
type fakeFlywheel struct {
	mu                 sync.Mutex
	queued             []string
	tokens             map[string]string
	heartbeats, output atomic.Int64
	badTokens          atomic.Int64
}

func (f *fakeFlywheel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.URL.Path == "/operator/v1/rollouts" && r.Header.Get("Authorization") == "Bearer op_x":
		var req struct{ Rollouts []any }
		_ = json.NewDecoder(r.Body).Decode(&req)
		for range req.Rollouts {
			f.queued = append(f.queued, fmt.Sprint("r", len(f.tokens)+len(f.queued)))
		}
		w.WriteHeader(http.StatusCreated)
	case r.URL.Path == "/flywheel/claim" && r.Header.Get("Authorization") == "Bearer mk_x":
		var out struct {
			Rollouts []map[string]string `json:"rollouts"`
		}
		for len(f.queued) > 0 && len(out.Rollouts) < 16 {
			id := f.queued[0]
			f.queued = f.queued[1:]
			f.tokens[id] = "tok-" + id
			out.Rollouts = append(out.Rollouts, map[string]string{"rollout_id": id, "api_key": "rk_" + id, "lease_token": "tok-" + id})
		}
		_ = json.NewEncoder(w).Encode(out)
	case strings.HasPrefix(r.URL.Path, "/flywheel/rollouts/"):
		parts := strings.Split(r.URL.Path, "/")
		id := parts[3]
		if f.tokens[id] == "" || r.Header.Get("Flywheel-Lease-Token") != f.tokens[id] || r.Header.Get("Authorization") != "Bearer rk_"+id {
			f.badTokens.Add(1)
			w.WriteHeader(http.StatusConflict)
			return
		}
		if parts[4] == "heartbeat" {
			f.heartbeats.Add(1)
		} else {
			f.output.Add(1)
		}
	default:
		w.WriteHeader(http.StatusUnauthorized)
	}
}

func TestFlywheel_LeasesEveryRolloutHeartbeatsForDurationAndCompletesThem(t *testing.T) {
	t.Parallel()
	fake := &fakeFlywheel{tokens: map[string]string{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	start := time.Now()
	rep, err := Flywheel(context.Background(), FlywheelOptions{Server: srv.URL, OperatorToken: "op_x", AgentKey: "mk_x",
		Rollouts: 300, Duration: 300 * time.Millisecond, Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a 300 ms run took %s", took)
	}
	if len(fake.tokens) != 300 || rep.Claim.Count != 19 || rep.Enqueue.Count != 2 {
		t.Fatalf("leased %d, claims %d, enqueues %d", len(fake.tokens), rep.Claim.Count, rep.Enqueue.Count)
	}
	if fake.badTokens.Load() != 0 || rep.Heartbeat.Failures != 0 || fake.output.Load() != 300 || rep.Output.Count != 300 {
		t.Fatalf("bad tokens %d, heartbeat failures %d, outputs %d", fake.badTokens.Load(), rep.Heartbeat.Failures, fake.output.Load())
	}
	// Heartbeats cut off by the deadline may reach the server uncounted.
	if n := int64(rep.Heartbeat.Count); n > fake.heartbeats.Load() || n < fake.heartbeats.Load()-8 || rep.Heartbeat.Count == 0 || rep.HeartbeatsPerS <= 0 || rep.ClaimsPerS <= 0 {
		t.Fatalf("heartbeats: report %d, server %d, %.1f/s", rep.Heartbeat.Count, fake.heartbeats.Load(), rep.HeartbeatsPerS)
	}
	if l := rep.Heartbeat; l.P50 > l.P90 || l.P90 > l.P99 || l.P99 > l.Max || l.Max <= 0 {
		t.Fatalf("percentiles out of order: %+v", l)
	}
	var out bytes.Buffer
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "heartbeat") || !strings.Contains(out.String(), "300 rollouts") {
		t.Fatalf("report:\n%s", out.String())
	}
}

func TestFlywheel_RefusesOptionsOutOfBounds(t *testing.T) {
	t.Parallel()
	ok := FlywheelOptions{Server: "http://127.0.0.1:1", OperatorToken: "op_x", AgentKey: "mk_x", Rollouts: 10, Duration: time.Second}
	for name, edit := range map[string]func(*FlywheelOptions){
		"remote server":     func(o *FlywheelOptions) { o.Server = "http://example.com" },
		"no scheme":         func(o *FlywheelOptions) { o.Server = "127.0.0.1:8080" },
		"no server":         func(o *FlywheelOptions) { o.Server = "" },
		"private address":   func(o *FlywheelOptions) { o.Server = "http://10.0.0.1:8080" },
		"too many rollouts": func(o *FlywheelOptions) { o.Rollouts = MaxRollouts + 1 },
		"no rollouts":       func(o *FlywheelOptions) { o.Rollouts = 0 },
		"too long":          func(o *FlywheelOptions) { o.Duration = MaxDuration + time.Second },
		"no duration":       func(o *FlywheelOptions) { o.Duration = 0 },
		"no operator token": func(o *FlywheelOptions) { o.OperatorToken = "" },
		"no agent key":      func(o *FlywheelOptions) { o.AgentKey = "" },
	} {
		o := ok
		edit(&o)
		if _, err := Flywheel(context.Background(), o); !errors.Is(err, ErrBounds) {
			t.Errorf("%s: want ErrBounds, got %v", name, err)
		}
	}
}

func TestFlywheel_ReportsAServerThatRefusesTheClaim(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&fakeFlywheel{tokens: map[string]string{}})
	defer srv.Close()
	_, err := Flywheel(context.Background(), FlywheelOptions{Server: srv.URL, OperatorToken: "op_x", AgentKey: "mk_wrong",
		Rollouts: 5, Duration: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "claim") {
		t.Fatalf("want a claim error, got %v", err)
	}
}
