package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"
)

// BenchmarkFlywheel_ClaimAndHeartbeat leases 1,000 and 2,000 rollouts on
// the dev stack (claim throughput), then heartbeats each every 10 s (lease/3
// of a 30 s lease: 100 or 200 heartbeats/s) for two rounds and reports the
// heartbeat latency p50/p99 (ms), and the stack process's memory. Leases
// are granted for 300 s so that none lapses while the claims are still
// being made. Run:
//
//	go test ./internal/e2e -run '^$' -bench Flywheel_ClaimAndHeartbeat -benchtime=1x
func BenchmarkFlywheel_ClaimAndHeartbeat(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		b.Run(fmt.Sprintf("leased=%d", n), func(b *testing.B) { claimAndHeartbeat(b, n) })
	}
}

func claimAndHeartbeat(b *testing.B, n int) {
	const leaseS = 300
	s := StartStack(b, StackOptions{})
	for i := 0; i < n; i += 250 {
		items := make([]any, 250)
		for j := range items {
			items[j] = map[string]any{"turn_input": fmt.Sprint("bench ", i+j), "deadline_s": 3600}
		}
		if r := s.Do(b, http.MethodPost, "/operator/v1/rollouts", s.OperatorToken, map[string]any{"rollouts": items}); r.Status != 201 {
			b.Fatalf("enqueue: %d %s", r.Status, r.Body)
		}
	}
	b.ResetTimer()
	var leased []struct {
		RolloutID, APIKey, LeaseToken string
	}
	start := time.Now()
	claims := 0
	for len(leased) < n {
		var c claimAnswer
		s.Do(b, http.MethodPost, "/flywheel/claim", s.APIKey, map[string]any{"max_rollouts": 16, "lease_s": leaseS}).JSON(b, &c)
		claims++
		if len(c.Rollouts) == 0 {
			b.Fatalf("queue ran dry at %d", len(leased))
		}
		for _, r := range c.Rollouts {
			leased = append(leased, struct{ RolloutID, APIKey, LeaseToken string }{r.RolloutID, r.APIKey, r.LeaseToken})
		}
	}
	claimDur := time.Since(start)
	b.ReportMetric(float64(n)/claimDur.Seconds(), "leases/s")
	b.ReportMetric(float64(claimDur.Milliseconds())/float64(claims), "ms/claim(16)")

	every := 10 * time.Second
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	var mu sync.Mutex
	var lat []time.Duration
	fails := 0
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, l := range leased {
		wg.Add(1)
		go func() {
			defer wg.Done()
			offset := every * time.Duration(i) / time.Duration(n)
			for round := 0; round < 2; round++ {
				time.Sleep(time.Until(t0.Add(offset + time.Duration(round)*every)))
				req, _ := http.NewRequest(http.MethodPost, s.APIURL+"/flywheel/rollouts/"+l.RolloutID+"/heartbeat", bytes.NewReader(nil))
				req.Header.Set("Authorization", "Bearer "+l.APIKey)
				req.Header.Set("Flywheel-Lease-Token", l.LeaseToken)
				st := time.Now()
				resp, err := hc.Do(req)
				d := time.Since(st)
				ok := err == nil && resp.StatusCode == 200
				if err == nil {
					var v map[string]any
					_ = json.NewDecoder(resp.Body).Decode(&v)
					_ = resp.Body.Close()
				}
				mu.Lock()
				lat = append(lat, d)
				if !ok {
					fails++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "hb-p50-ms")
	b.ReportMetric(pct(0.99), "hb-p99-ms")
	b.ReportMetric(float64(len(lat))/time.Since(t0).Seconds(), "hb/s")
	b.ReportMetric(float64(fails), "hb-failures")
	reportInProcessMemory(b)
}
