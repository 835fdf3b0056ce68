package runner

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options configure a runner.
type Options struct {
	// Server is the Gatehouse base URL.
	Server string
	// AgentKey is the agent's mk_ key (never passed to the agent).
	AgentKey string
	// Command is the agent command and arguments, run once per rollout.
	Command []string
	// WorkDir holds each rollout's artifacts_dir (default: a temp dir).
	WorkDir string
	// Concurrency is how many rollouts run at once (default 1).
	Concurrency int
	// LeaseS is the lease requested at claim (the server may clamp it).
	LeaseS float64
	// MaxRollouts stops the runner after that many rollouts (0: run until ctx ends).
	MaxRollouts int
	// InlineFileCap and InlineReportCap bound inlined artifact bodies.
	InlineFileCap, InlineReportCap int
	// StdoutCap bounds the final text collected from stdout (default 1 MiB).
	StdoutCap int
	// HTTP is the client (default: 30 s timeout).
	HTTP *http.Client
	// LLMTransport forwards the agent's LLM calls to the llm_url (default:
	// http.DefaultTransport).
	LLMTransport http.RoundTripper
	// Log receives progress (default: discarded).
	Log *slog.Logger
}

func (o *Options) defaults() error {
	if o.Server == "" || o.AgentKey == "" || len(o.Command) == 0 {
		return errors.New("runner: a server, an agent key and an agent command are required")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.InlineFileCap <= 0 {
		o.InlineFileCap = DefaultInlineFileCap
	}
	if o.InlineReportCap <= 0 {
		o.InlineReportCap = DefaultInlineReportCap
	}
	if o.StdoutCap <= 0 {
		o.StdoutCap = 1 << 20
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if o.LLMTransport == nil {
		o.LLMTransport = http.DefaultTransport
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.WorkDir == "" {
		dir, err := os.MkdirTemp("", "gatehouse-runner-")
		if err != nil {
			return err
		}
		o.WorkDir = dir
	}
	return nil
}

// Run claims and runs rollouts until ctx ends or MaxRollouts are done.
func Run(ctx context.Context, opts Options) error {
	if err := opts.defaults(); err != nil {
		return err
	}
	c := &client{base: opts.Server, agentKey: opts.AgentKey, http: opts.HTTP}
	slots := make(chan struct{}, opts.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	claimed := 0
	for ctx.Err() == nil && (opts.MaxRollouts == 0 || claimed < opts.MaxRollouts) {
		slots <- struct{}{}
		free := 1 + opts.Concurrency - len(slots)
		<-slots
		if opts.MaxRollouts > 0 {
			free = min(free, opts.MaxRollouts-claimed)
		}
		if free <= 0 {
			sleep(ctx, 50*time.Millisecond)
			continue
		}
		resp, err := c.claim(ctx, free, opts.LeaseS)
		if err != nil {
			opts.Log.Warn("claim failed", "err", err)
			sleep(ctx, 2*time.Second)
			continue
		}
		for _, r := range resp.Rollouts {
			claimed++
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				runOne(ctx, c, opts, r, time.Now())
			}()
		}
		if len(resp.Rollouts) == 0 {
			sleep(ctx, time.Duration(max(resp.PollAfterMS, 100))*time.Millisecond)
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// heartbeatEvery is a third of the remaining grant, read once at claim.
func heartbeatEvery(r RolloutRequest, leaseS float64, claimedAt time.Time) time.Duration {
	remaining := time.Duration(leaseS * float64(time.Second))
	if r.LeaseExpiresTS != nil {
		remaining = time.Until(time.UnixMicro(int64(*r.LeaseExpiresTS*1e6))) + time.Since(claimedAt)
	}
	if remaining <= 0 {
		remaining = 30 * time.Second
	}
	return max(remaining/3, 50*time.Millisecond)
}

// runOne runs the agent for one rollout and posts its output, unless the
// lease was lost (a fenced runner must not report). The agent is stopped
// a margin before deadline_ts, so even a deadline_exceeded report (with
// its artifacts) lands while the server still accepts it.
func runOne(ctx context.Context, c *client, opts Options, r RolloutRequest, claimedAt time.Time) {
	log := opts.Log.With("rollout_id", r.RolloutID)
	deadline := time.UnixMicro(int64(r.DeadlineTS * 1e6))
	dir, err := artifactsDir(opts.WorkDir, r)
	if err != nil {
		log.Error("artifacts dir", "err", err)
		return
	}
	leaseCtx, cancelLease := context.WithDeadline(ctx, deadline)
	defer cancelLease()
	lost := make(chan struct{})
	var lostOnce sync.Once
	go keepLease(leaseCtx, c, r, heartbeatEvery(r, opts.LeaseS, claimedAt), func() { lostOnce.Do(func() { close(lost); cancelLease() }) }, log)

	agentCtx, cancelAgent := context.WithDeadline(leaseCtx, deadline.Add(-reportMargin(time.Until(deadline))))
	defer cancelAgent()
	res := runAgentWithProxy(agentCtx, opts, r, dir)
	select {
	case <-lost:
		log.Warn("lease lost; not reporting")
		return
	default:
	}
	out := map[string]any{"final_text": res.stdout, "tool_calls": nil}
	if res.llmCalls != nil {
		out["llm_call_count"] = *res.llmCalls
	}
	if reason, detail := exclusionOf(ctx, agentCtx, res); reason != "" {
		out["exclusion"] = map[string]any{"reason": reason, "detail": detail}
		if reason == ExclusionAgentExit {
			out["success"] = false
		}
	}
	if arts, err := collectArtifacts(dir, opts.InlineFileCap, opts.InlineReportCap); err == nil {
		out["artifacts"] = arts
	}
	out["timing"] = map[string]any{"wall_s": res.wall.Seconds()}
	postCtx, cancelPost := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancelPost()
	if err := postOutput(postCtx, c, r, out); err != nil {
		log.Error("output not accepted", "err", err)
	}
}

// reportMargin is how long before deadline_ts the agent is stopped so the
// report still lands: a tenth of the time left, between 200 ms and 5 s.
func reportMargin(left time.Duration) time.Duration {
	return min(max(left/10, 200*time.Millisecond), 5*time.Second)
}

func postOutput(ctx context.Context, c *client, r RolloutRequest, out map[string]any) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		err = c.output(ctx, r, out)
		var se *StatusError
		if err == nil {
			return nil
		}
		if errors.As(err, &se) {
			if se.Status == http.StatusConflict && strings.Contains(se.Body, `"same_body":true`) {
				return nil // an earlier attempt landed
			}
			if se.Status < 500 {
				return err
			}
		}
		sleep(ctx, time.Duration(attempt+1)*500*time.Millisecond)
	}
	return err
}

func keepLease(ctx context.Context, c *client, r RolloutRequest, every time.Duration, onLost func(), log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			err := c.heartbeat(ctx, r)
			var se *StatusError
			if errors.As(err, &se) && (se.Status == http.StatusConflict || se.Status == http.StatusGone || se.Status == http.StatusForbidden) {
				onLost()
				return
			}
			if err != nil && ctx.Err() == nil {
				log.Warn("heartbeat failed; retrying at the next beat", "err", err)
			}
		}
	}
}

// artifactsDir resolves the server's relative artifacts_dir under the
// work dir, refusing anything that would escape it.
func artifactsDir(work string, r RolloutRequest) (string, error) {
	rel := filepath.Clean(filepath.FromSlash(r.ArtifactsDir))
	if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = filepath.Join("rollouts", filepath.Base(r.RolloutID))
	}
	dir := filepath.Join(work, rel)
	return dir, os.MkdirAll(dir, 0o755)
}
