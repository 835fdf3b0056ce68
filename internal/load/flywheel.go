// Package load drives a running Gatehouse server with bounded synthetic
// traffic and reports throughput and latency percentiles.
package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Bounds on one run: a load generator must not become a denial of service.
const (
	MaxRollouts = 10000
	MaxDuration = 10 * time.Minute
)

// FlywheelOptions configure one flywheel load run.
type FlywheelOptions struct {
	// Server is the Gatehouse base URL; its host must be a loopback address.
	Server string
	// OperatorToken enqueues the rollouts (op_…); AgentKey claims them (mk_…).
	OperatorToken, AgentKey string
	// Rollouts to enqueue and lease (1..MaxRollouts).
	Rollouts int
	// Duration of the heartbeat phase (up to MaxDuration).
	Duration time.Duration
	// Concurrency is the number of heartbeating clients (default 32).
	Concurrency int
	// HTTPClient defaults to one with a 30 s timeout.
	HTTPClient *http.Client
}

// Latency summarizes one kind of request.
type Latency struct {
	Count, Failures int
	P50, P90, P99   time.Duration
	Max             time.Duration
}

// Report is what a run measured.
type Report struct {
	Rollouts                   int
	Enqueue, Claim, Heartbeat  Latency
	Output                     Latency
	ClaimsPerS, HeartbeatsPerS float64
	Elapsed                    time.Duration
}

// ErrBounds is returned for options outside the generator's limits.
var ErrBounds = errors.New("load: options out of bounds")

func (o *FlywheelOptions) check() error {
	u, err := url.Parse(o.Server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: --server must be an explicit http(s) URL, got %q", ErrBounds, o.Server)
	}
	if !isLoopback(u.Hostname()) {
		return fmt.Errorf("%w: --server host %q is not loopback; load runs against a local server only", ErrBounds, u.Hostname())
	}
	if o.Rollouts < 1 || o.Rollouts > MaxRollouts {
		return fmt.Errorf("%w: --rollouts must be 1..%d", ErrBounds, MaxRollouts)
	}
	if o.Duration <= 0 || o.Duration > MaxDuration {
		return fmt.Errorf("%w: --duration must be in (0, %s]", ErrBounds, MaxDuration)
	}
	if o.OperatorToken == "" || o.AgentKey == "" {
		return fmt.Errorf("%w: --operator-token and --agent-key are required", ErrBounds)
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 32
	}
	if o.Concurrency > 256 {
		o.Concurrency = 256
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.Concurrency}}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// leased is one rollout the generator holds.
type leased struct{ id, key, token string }

// Flywheel enqueues opts.Rollouts rollouts, claims them all, heartbeats
// them round-robin for opts.Duration, then submits an output for each so
// none is left running. It stops early when ctx ends.
func Flywheel(ctx context.Context, opts FlywheelOptions) (Report, error) {
	if err := opts.check(); err != nil {
		return Report{}, err
	}
	c := client{opts: opts}
	rep := Report{Rollouts: opts.Rollouts}
	start := time.Now()
	var enq, claim, hb, out recorder
	for i := 0; i < opts.Rollouts; i += 250 {
		items := make([]any, min(250, opts.Rollouts-i))
		for j := range items {
			items[j] = map[string]any{"turn_input": fmt.Sprint("load ", i+j), "deadline_s": int(opts.Duration.Seconds()) + 600}
		}
		if err := enq.time(func() error {
			return c.post(ctx, "/operator/v1/rollouts", opts.OperatorToken, "", map[string]any{"rollouts": items}, http.StatusCreated, nil)
		}); err != nil {
			return rep, fmt.Errorf("enqueue: %w", err)
		}
	}
	var held []leased
	claimStart := time.Now()
	for len(held) < opts.Rollouts {
		var got struct {
			Rollouts []struct {
				RolloutID  string `json:"rollout_id"`
				APIKey     string `json:"api_key"`
				LeaseToken string `json:"lease_token"`
			} `json:"rollouts"`
		}
		if err := claim.time(func() error {
			return c.post(ctx, "/flywheel/claim", opts.AgentKey, "", map[string]any{"max_rollouts": 16, "lease_s": 60}, http.StatusOK, &got)
		}); err != nil {
			return rep, fmt.Errorf("claim: %w", err)
		}
		if len(got.Rollouts) == 0 {
			return rep, fmt.Errorf("claim: queue ran dry after %d of %d", len(held), opts.Rollouts)
		}
		for _, r := range got.Rollouts {
			held = append(held, leased{r.RolloutID, r.APIKey, r.LeaseToken})
		}
	}
	rep.ClaimsPerS = float64(len(held)) / time.Since(claimStart).Seconds()

	hbStart := time.Now()
	hctx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	c.each(hctx, held, opts.Concurrency, true, func(l leased) {
		_ = hb.time(func() error {
			return c.post(hctx, "/flywheel/rollouts/"+l.id+"/heartbeat", l.key, l.token, nil, http.StatusOK, nil)
		})
	})
	rep.HeartbeatsPerS = float64(hb.count()) / time.Since(hbStart).Seconds()
	c.each(ctx, held, opts.Concurrency, false, func(l leased) {
		_ = out.time(func() error {
			return c.post(ctx, "/flywheel/rollouts/"+l.id+"/output", l.key, l.token,
				map[string]any{"final_text": "load", "tool_calls": []any{}, "llm_call_count": 0}, http.StatusOK, nil)
		})
	})
	rep.Enqueue, rep.Claim, rep.Heartbeat, rep.Output = enq.summary(), claim.summary(), hb.summary(), out.summary()
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// client sends the generator's requests.
type client struct{ opts FlywheelOptions }

// each hands the leases to n workers: once each, or (cycle) round-robin
// until ctx ends.
func (c client) each(ctx context.Context, held []leased, n int, cycle bool, fn func(leased)) {
	work := make(chan leased)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for l := range work {
				fn(l)
			}
		})
	}
	defer func() { close(work); wg.Wait() }()
	for {
		for _, l := range held {
			select {
			case <-ctx.Done():
				return
			case work <- l:
			}
		}
		if !cycle {
			return
		}
	}
}

func (c client) post(ctx context.Context, path, bearer, leaseToken string, body any, want int, out any) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.opts.Server+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	if leaseToken != "" {
		req.Header.Set("Flywheel-Lease-Token", leaseToken)
	}
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read only: a close error loses nothing
	if resp.StatusCode != want {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, b)
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// recorder collects latencies from concurrent requests.
type recorder struct {
	mu       sync.Mutex
	lat      []time.Duration
	failures int
}

func (r *recorder) time(fn func() error) error {
	st := time.Now()
	err := fn()
	d := time.Since(st)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			r.failures++
		}
		return err
	}
	r.lat = append(r.lat, d)
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.lat)
}

func (r *recorder) summary() Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := Latency{Count: len(r.lat), Failures: r.failures}
	if len(r.lat) == 0 {
		return l
	}
	s := slices.Clone(r.lat)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[int(p*float64(len(s)-1))] }
	l.P50, l.P90, l.P99, l.Max = at(0.50), at(0.90), at(0.99), s[len(s)-1]
	return l
}

// Write prints the report as a table to w in one write and answers that
// write's error.
func (r Report) Write(w io.Writer) error {
	var b bytes.Buffer // a bytes.Buffer's writes never fail
	fmt.Fprintf(&b, "flywheel load: %d rollouts in %s; claims %.1f/s, heartbeats %.1f/s\n",
		r.Rollouts, r.Elapsed.Round(time.Millisecond), r.ClaimsPerS, r.HeartbeatsPerS)
	fmt.Fprintf(&b, "%-10s %8s %8s %10s %10s %10s %10s\n", "request", "count", "failed", "p50", "p90", "p99", "max")
	for _, row := range []struct {
		name string
		l    Latency
	}{{"enqueue", r.Enqueue}, {"claim", r.Claim}, {"heartbeat", r.Heartbeat}, {"output", r.Output}} {
		fmt.Fprintf(&b, "%-10s %8d %8d %10s %10s %10s %10s\n", row.name, row.l.Count, row.l.Failures,
			ms(row.l.P50), ms(row.l.P90), ms(row.l.P99), ms(row.l.Max))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
