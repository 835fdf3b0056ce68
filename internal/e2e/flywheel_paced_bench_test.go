package e2e

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// The load shape: each rollout is leased for pacedLease, then
// heartbeats every pacedEvery until pacedBeats heartbeats are sent, then
// posts its output.
const (
	pacedLease = 15 * time.Second
	pacedEvery = 5 * time.Second
	pacedBeats = 4
	// pacedConns bounds the load generator's connections, as a fleet's
	// egress or a front's connection limit would: a request that finds
	// them all busy waits, and the wait counts in its latency.
	pacedConns = 64
)

// BenchmarkProductionTopology_FlywheelPaced is the rounds benchmark under
// the issue's own load shape rather than back-to-back rounds: n rollouts
// leased at once, one a claim as agents that each claim their own do
// (pacedConns claimers, lease 15 s), each heartbeating 5, 10, 15 and 20 s
// after its claim, then posting its output. The plain lease server takes
// the outputs too (it stores each in its row), so both sides meet the
// same load; the per-beat figures logged show beats 1-3, heartbeats
// alone, apart from beat 4, which meets the outputs. Every request
// is sent on its own goroutine at its due time and timed from that time,
// so a server that falls behind is charged for the wait (no coordinated
// omission). Unlike the back-to-back rounds, the leases here are short
// enough that Gatehouse tells Temporal of each grant, heartbeat and output
// while the heartbeats run: that work is part of what it is measured
// under. It reports as BenchmarkProductionTopology_FlywheelRounds does, the
// heartbeat percentiles being those of every paced heartbeat. Run:
//
//	go test ./internal/e2e -run '^$' -bench ProductionTopology_FlywheelPaced -benchtime=1x
//
// GATEHOUSE_BENCH_ROUNDS and GATEHOUSE_BENCH_FLYWHEEL_ROLLOUTS apply as
// there.
func BenchmarkProductionTopology_FlywheelPaced(b *testing.B) {
	runRounds(b, prodRoundStack, pacedLeases)
}

// BenchmarkFlywheelPaced is BenchmarkProductionTopology_FlywheelPaced on
// gatehouse dev (SQLite, Temporal, api and worker in one process of its
// own, startDevProcess), 5,000 rollouts a round by default, beside the same
// plain lease server. Run:
//
//	go test ./internal/e2e -run '^$' -bench '^BenchmarkFlywheelPaced$' -benchtime=1x
func BenchmarkFlywheelPaced(b *testing.B) {
	if os.Getenv("GATEHOUSE_BENCH_FLYWHEEL_ROLLOUTS") == "" {
		b.Setenv("GATEHOUSE_BENCH_FLYWHEEL_ROLLOUTS", "5000")
	}
	runRounds(b, devRoundStack, pacedLeases)
}

// devRoundStack starts gatehouse dev in a process of its own for
// runRounds.
func devRoundStack(b *testing.B) roundStack {
	d := startDevProcess(b)
	meter := &cpuMeter{groups: map[string]func() []int{"gatehouse": func() []int { return []int{d.pid()} }}}
	return roundStack{
		q: leaser{base: d.APIURL, claimPath: "/flywheel/claim", claimToken: d.APIKey,
			hbPath: func(l lease) string { return "/flywheel/rollouts/" + l.ID + "/heartbeat" }},
		enqueue:      func(b *testing.B, n int, prefix string) { enqueueRollouts(b, d.Stack, n, prefix) },
		quiet:        func() time.Duration { return settle(meter, "gatehouse") },
		metricsURLs:  []string{d.APIURL + "/metrics"},
		reportMemory: func(b *testing.B) { reportRoleMemory(b, "dev", []int{d.pid()}) },
	}
}

// claimEach leases n rollouts one a claim, as n agents that each claim
// their own do, from pacedConns claimers at once, failing on any rollout
// leased twice; it returns the leases in the order they were granted and
// when each claim was answered.
func claimEach(b *testing.B, q leaser, n int) ([]lease, []time.Time) {
	type granted struct {
		lease
		at time.Time
	}
	var (
		mu    sync.Mutex
		got   []granted
		wg    sync.WaitGroup
		first error
	)
	for range pacedConns {
		wg.Go(func() {
			for {
				mu.Lock()
				done := len(got) >= n || first != nil
				mu.Unlock()
				if done {
					return
				}
				var c claimAnswer
				err := q.post(q.claimPath, q.claimToken, "", map[string]any{"max_rollouts": 1, "lease_s": pacedLease.Seconds()}, &c)
				at := time.Now()
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				for _, r := range c.Rollouts {
					got = append(got, granted{lease{r.RolloutID, r.APIKey, r.LeaseToken}, at})
				}
				mu.Unlock()
				if err == nil && len(c.Rollouts) == 0 {
					return // the queue is empty: every rollout is granted or on its way
				}
			}
		})
	}
	wg.Wait()
	switch {
	case first != nil:
		b.Fatal(first)
	case len(got) != n:
		b.Fatalf("leased %d rollouts of %d", len(got), n)
	}
	slices.SortFunc(got, func(a, b granted) int { return a.at.Compare(b.at) })
	seen := make(map[string]bool, len(got))
	leased, at := make([]lease, 0, n), make([]time.Time, 0, n)
	for _, g := range got {
		if seen[g.ID] {
			b.Fatalf("rollout %s was leased twice", g.ID)
		}
		seen[g.ID] = true
		leased, at = append(leased, g.lease), append(at, g.at)
	}
	return leased, at
}

// pacedLeases claims n rollouts and runs their paced heartbeats and
// outputs, failing on any answer but 200 and on any rollout leased twice.
// The baseline takes the same outputs (a plain lease server stores them
// too), so both sides meet the same load; gatehouse only says which side
// this is.
func pacedLeases(b *testing.B, q leaser, n int, gatehouse bool) (leaseFigures, []time.Duration) {
	q.hc = q.client()
	q.hc.Transport.(*http.Transport).MaxConnsPerHost = pacedConns
	var f leaseFigures
	start := time.Now()
	leased, claimedAt := claimEach(b, q, n)
	f.claimsPerSec = float64(n) / claimedAt[len(claimedAt)-1].Sub(start).Seconds()

	var (
		mu       sync.Mutex
		outs     []time.Duration
		byBeat   [pacedBeats][]timedLatency
		failures []error
		wg       sync.WaitGroup
	)
	// record keeps a request's figure (add) or its error.
	record := func(err error, add func()) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures = append(failures, err)
			return
		}
		add()
	}
	side := "baseline"
	if gatehouse {
		side = "gatehouse"
	}
	// Every beat's requests are sent on one timeline, in order of due
	// time: when the claims took longer than pacedEvery, a beat's first
	// requests fall due before the last of the beat before, and a loop
	// per beat would send them late and charge its own lateness to the
	// server.
	type paced struct {
		due  time.Time
		l    lease
		beat int
	}
	var plan []paced
	for beat := 1; beat <= pacedBeats; beat++ {
		for i, l := range leased {
			plan = append(plan, paced{claimedAt[i].Add(time.Duration(beat) * pacedEvery), l, beat})
		}
	}
	slices.SortStableFunc(plan, func(a, b paced) int { return a.due.Compare(b.due) })
	stopProfile := func() {}
	lastBeatStarts, profiling := claimedAt[0].Add(pacedBeats*pacedEvery-100*time.Millisecond), false
	for _, r := range plan {
		if !profiling && !r.due.Before(lastBeatStarts) {
			time.Sleep(time.Until(lastBeatStarts))
			stopProfile, profiling = profilePhase(b, "paced-last-beat-"+side), true
		}
		time.Sleep(time.Until(r.due))
		wg.Go(func() {
			err := q.post(q.hbPath(r.l), r.l.Key, r.l.Token, nil, nil)
			x := timedLatency{r.due.Sub(claimedAt[0]), time.Since(r.due)}
			record(err, func() { byBeat[r.beat-1] = append(byBeat[r.beat-1], x) })
			if r.beat == pacedBeats && err == nil {
				sent := time.Now()
				err := q.post(q.outputTo(r.l), r.l.Key, r.l.Token, benchOutput, nil)
				took := time.Since(sent)
				record(err, func() { outs = append(outs, took) })
			}
		})
	}
	wg.Wait()
	stopProfile()
	if len(failures) > 0 {
		b.Fatalf("%d paced requests failed, the first: %v", len(failures), failures[0])
	}
	line := side + " heartbeat p50/p99 by beat:"
	for i, tl := range byBeat {
		lat := tookOf(tl)
		f.warm = append(f.warm, lat...)
		slices.Sort(lat)
		line += fmt.Sprintf(" %d: %.1f/%.1f ms;", i+1, pct(lat, 0.5), pct(lat, 0.99))
	}
	b.Log(line)
	// Where in each beat the slow heartbeats were due, on stderr: a
	// benchmark's log keeps only its first ten lines. The wall clock of
	// the first claim sets them beside a child's log (childLog).
	fmt.Fprintf(os.Stderr, "%s beats are timed from the first claim, %s\n", side, claimedAt[0].UTC().Format("15:04:05.000"))
	for i, tl := range byBeat {
		fmt.Fprintf(os.Stderr, "%s beat %d slow heartbeats by due time: %s\n", side, i+1, slowBySlice(tl, time.Duration(i+1)*pacedEvery))
	}
	slices.Sort(f.warm)
	slices.Sort(outs)
	return f, outs
}
