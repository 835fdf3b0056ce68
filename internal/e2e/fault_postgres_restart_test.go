package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// beat is one heartbeat answer.
type beat struct {
	at         time.Time
	status     int
	retryAfter string
	body       string
}

// heartbeater heartbeats one rollout every 100 ms until stopped.
type heartbeater struct {
	mu    sync.Mutex
	beats []beat
	stop  chan struct{}
	done  chan struct{}
}

func startHeartbeating(url, key, token string) *heartbeater {
	h := &heartbeater{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		for {
			r, err := postLeased(url, key, token, map[string]any{})
			b := beat{at: time.Now(), status: -1}
			if err == nil {
				b = beat{at: time.Now(), status: r.Status, retryAfter: r.Header.Get("Retry-After"), body: string(r.Body)}
			}
			h.mu.Lock()
			h.beats = append(h.beats, b)
			h.mu.Unlock()
			select {
			case <-h.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return h
}

// answered reports whether a heartbeat sent after since got status.
func (h *heartbeater) answered(since time.Time, status int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.beats {
		if b.at.After(since) && b.status == status {
			return true
		}
	}
	return false
}

func (h *heartbeater) halt() []beat {
	close(h.stop)
	<-h.done
	return h.beats
}

// checkUnavailable fails unless r is the flywheel's typed, retryable 503:
// error code "unavailable", no driver text and, when the flywheel handler
// (not the shared credential check in front of it) answered, Retry-After
// and details.retryable.
func checkUnavailable(t *testing.T, what string, status int, retryAfter, body string) {
	t.Helper()
	checkUnavailableFrom(t, what, status, retryAfter, body, true)
}

func checkUnavailableFrom(t *testing.T, what string, status int, retryAfter, body string, handler bool) {
	t.Helper()
	var e struct {
		Error struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if status != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != "unavailable" ||
		handler && (retryAfter == "" || e.Error.Details["retryable"] != true) {
		t.Fatalf("%s with the database down: %d Retry-After %q %s", what, status, retryAfter, body)
	}
	for _, leak := range []string{"SQLSTATE", "dial", "pgx", "connect:", "127.0.0.1"} {
		if strings.Contains(body, leak) {
			t.Fatalf("%s leaks the driver's message (%q): %s", what, leak, body)
		}
	}
}

// TestFault_PostgresRestartedWhileRolloutsHeartbeat stops and restarts a
// private PostgreSQL under a dev stack while three leased rollouts
// heartbeat every 100 ms. While it is down every heartbeat, claim and
// output answers a typed 503 with Retry-After (never a 500 or a driver
// message); after the restart the heartbeats succeed again, no rollout is
// leased twice, an output accepted before the restart is still there, and
// one refused during it is accepted on retry.
func TestFault_PostgresRestartedWhileRolloutsHeartbeat(t *testing.T) {
	t.Parallel()
	pg := startPrivatePostgres(t)
	s := StartStack(t, StackOptions{Env: map[string]string{"GATEHOUSE_DATABASE_URL": pg.URL()}})
	other := withAgentKey(t, s, "pg-restart-other")
	const n = 4
	want := map[string]bool{}
	for range n {
		want[enqueueOne(t, s, "during a database restart")] = true
	}
	var c claimed
	s.Do(t, http.MethodPost, "/flywheel/claim", s.APIKey, map[string]any{"max_rollouts": n, "lease_s": 120}).JSON(t, &c)
	if len(c.Rollouts) != n {
		t.Fatalf("claim: %+v", c)
	}
	ro := c.Rollouts
	output := func(i int, text string) Response {
		r, err := postLeased(s.APIURL+"/flywheel/rollouts/"+ro[i].RolloutID+"/output", ro[i].APIKey, ro[i].LeaseToken,
			map[string]any{"final_text": text, "tool_calls": []any{}, "llm_call_count": 0})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := output(0, "before the restart"); r.Status != http.StatusOK {
		t.Fatalf("output before the restart: %d %s", r.Status, r.Body)
	}

	var hbs []*heartbeater
	for _, r := range ro[1:] {
		hbs = append(hbs, startHeartbeating(s.APIURL+"/flywheel/rollouts/"+r.RolloutID+"/heartbeat", r.APIKey, r.LeaseToken))
	}
	start := time.Now()
	waitFor(t, 10*time.Second, func() bool { return allAnswered(hbs, start, http.StatusOK) })

	pg.Stop(t)
	down := time.Now()
	waitFor(t, 20*time.Second, func() bool { return allAnswered(hbs, down, http.StatusServiceUnavailable) })
	r, err := postWith(s.APIURL+"/flywheel/claim", other.APIKey, map[string]any{"max_rollouts": n}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The claim's agent key is checked first, by the shared credential
	// middleware, which answers its own typed 503.
	checkUnavailableFrom(t, "claim", r.Status, r.Header.Get("Retry-After"), string(r.Body), false)
	r = output(1, "after the restart")
	checkUnavailable(t, "output", r.Status, r.Header.Get("Retry-After"), string(r.Body))

	pg.Start(t)
	up := time.Now()
	t.Logf("database down for %s", up.Sub(down).Round(time.Millisecond))
	waitFor(t, 30*time.Second, func() bool { return allAnswered(hbs, up, http.StatusOK) })
	var resumed time.Duration // the slowest heartbeater's first success after the restart
	for i, h := range hbs {
		var first time.Duration
		for _, b := range h.halt() {
			switch b.status {
			case http.StatusOK:
				if b.at.After(up) && first == 0 {
					first = b.at.Sub(up)
				}
			case http.StatusServiceUnavailable:
				checkUnavailable(t, "heartbeat", b.status, b.retryAfter, b.body)
			default:
				t.Fatalf("rollout %d heartbeat answered %d %s", i+1, b.status, b.body)
			}
		}
		resumed = max(resumed, first)
	}
	t.Logf("heartbeats resumed within %s of the restart", resumed.Round(time.Millisecond))

	// No rollout is handed out twice: every one is still under its lease.
	var again claimed
	if r := other.Do(t, http.MethodPost, "/flywheel/claim", other.APIKey, map[string]any{"max_rollouts": n}); r.Status != http.StatusOK {
		t.Fatalf("claim after the restart: %d %s", r.Status, r.Body)
	} else {
		r.JSON(t, &again)
	}
	for _, x := range again.Rollouts {
		if want[x.RolloutID] {
			t.Fatalf("rollout %s leased twice after the restart", x.RolloutID)
		}
	}
	if r := output(1, "after the restart"); r.Status != http.StatusOK {
		t.Fatalf("output retried after the restart: %d %s", r.Status, r.Body)
	}
	for i, text := range []string{"before the restart", "after the restart"} {
		rec := waitRollout(t, s, ro[i].RolloutID, func(r rolloutRecord) bool { return r.Status == "completed" })
		if rec.Output == nil || rec.Output.FinalText != text || rec.Attempts != 1 {
			t.Fatalf("rollout %d: attempts %d output %+v", i, rec.Attempts, rec.Output)
		}
	}
	for _, x := range ro[2:] {
		rec := waitRollout(t, s, x.RolloutID, func(r rolloutRecord) bool { return true })
		if rec.Attempts != 1 || rec.Status == "queued" {
			t.Fatalf("rollout %s after the restart: status %s attempts %d", x.RolloutID, rec.Status, rec.Attempts)
		}
	}
}

// allAnswered reports whether every heartbeater got status after since.
func allAnswered(hbs []*heartbeater, since time.Time, status int) bool {
	for _, h := range hbs {
		if !h.answered(since, status) {
			return false
		}
	}
	return true
}
