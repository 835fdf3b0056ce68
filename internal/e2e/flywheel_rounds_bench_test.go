package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkProductionTopology_FlywheelRounds is the side-by-side run of
// BenchmarkProductionTopology_FlywheelVsSkipLocked repeated: one
// production topology (load spread over the api replicas) and one plain
// SKIP LOCKED lease server are started once, then each runs the lease
// bench on n fresh rollouts, in turns, for several rounds (the baseline
// first in odd rounds, Gatehouse first in even ones, so a drift in the
// machine's speed weighs on both alike). Each side's round ends with its
// outputs. It reports the median over rounds of each per-round ratio
// (Gatehouse against the baseline of the same round) and how many rounds
// met each target:
//
//   - claims-ratio: claims/s against the baseline's (target ≥ 0.5);
//   - hb-p50-ratio: heartbeat p50 against the baseline's (target ≤ 2);
//   - hb-p99-ratio: heartbeat p99 against the baseline's (target ≤ 1);
//   - out-p50-ms: the median of the rounds' output p50 (target ≤ 20).
//
// On a machine whose speed drifts from one minute to the next, one run of
// each says little; the median ratio of rounds run minutes apart, each
// side by side, is the figure to compare. Run:
//
//	go test ./internal/e2e -run '^$' -bench ProductionTopology_FlywheelRounds -benchtime=1x
//
// GATEHOUSE_BENCH_ROUNDS=<k> runs k rounds instead of 5;
// GATEHOUSE_BENCH_FLYWHEEL_ROLLOUTS=<n> leases n rollouts a round instead of 2,000.
func BenchmarkProductionTopology_FlywheelRounds(b *testing.B) {
	runRounds(b, prodRoundStack, func(b *testing.B, q leaser, n int, gatehouse bool) (leaseFigures, []time.Duration) {
		f, leased := measureLeases(b, q, n)
		return f, postOutputs(b, q, leased)
	})
}

// roundSide measures one side of a round on n freshly queued rollouts: its
// claims and heartbeats, and its outputs' latencies.
type roundSide func(b *testing.B, q leaser, n int, gatehouse bool) (leaseFigures, []time.Duration)

// roundStack is the Gatehouse side of a rounds benchmark: a stack, its
// client, and what a round needs of it.
type roundStack struct {
	q leaser
	// enqueue queues n fresh rollouts named after prefix.
	enqueue func(b *testing.B, n int, prefix string)
	// quiet waits for the machine's background work to end, and says how
	// long it waited.
	quiet func() time.Duration
	// metricsURLs are where the api's /metrics (the signal counts) are.
	metricsURLs []string
	// reportMemory reports the stack's processes' memory.
	reportMemory func(b *testing.B)
}

// prodRoundStack starts one production topology for runRounds.
func prodRoundStack(b *testing.B) roundStack {
	p := startProdStack(b, "GATEHOUSE_DATABASE_MAX_CONNS=16", "GATEHOUSE_DATABASE_MAX_IDLE_CONNS=16")
	meter := newCPUMeter(p.Prod)
	// quiet waits for the stack's background work to end, so neither side
	// is timed while it runs: the workflow tasks of an enqueue, and after
	// the outputs the rollouts' workflows finishing (on a 2-core machine
	// Temporal and its database were measured busy for over a minute after
	// 2,000 outputs). It gives up after five settle windows.
	quiet := func() time.Duration {
		var took time.Duration
		for try := 0; try < 5; try++ {
			t := settle(meter, "temporal", "worker", "api", "postgres", "postgres-temporal", "postgres-background")
			took += t
			if t < settleMax {
				break
			}
		}
		return took
	}
	return roundStack{
		q: leaser{base: p.APIURL, claimPath: "/flywheel/claim", claimToken: p.APIKey,
			hbPath:   func(l lease) string { return "/flywheel/rollouts/" + l.ID + "/heartbeat" },
			replicas: hostPorts(b, p.Prod.APIURLs)},
		enqueue:      func(b *testing.B, n int, prefix string) { enqueueRollouts(b, p.Stack, n, prefix) },
		quiet:        quiet,
		metricsURLs:  p.Prod.APIMetricsURLs,
		reportMemory: func(b *testing.B) { reportProcessMemory(b, p) },
	}
}

// runRounds starts the Gatehouse side (stack) and one plain SKIP LOCKED
// lease server, measures both with measure in turns for several rounds,
// and reports the rounds (reportRounds).
func runRounds(b *testing.B, stack func(*testing.B) roundStack, measure roundSide) {
	n, rounds := benchRollouts(b, 2000), benchRounds(b, 5)
	base := startSkipLockedProcess(b, n)
	baseQ := base.leaser()
	baseQ.cpu = nil // quiet meters the machine; a round reports ratios
	gh := stack(b)
	// Each wait for quiet is noted in the round's log line (a benchmark
	// keeps only ten lines).
	var waits []string
	quiet := func() { waits = append(waits, gh.quiet().Round(100*time.Millisecond).String()) }
	var results []roundResult
	for r := range rounds {
		var res roundResult
		runBase := func() {
			if r > 0 {
				base.refill(b, n)
			}
			quiet()
			res.base, res.baseOutputs = measure(b, baseQ, n, false)
		}
		runGatehouse := func() {
			gh.enqueue(b, n, fmt.Sprintf("round %d ", r))
			quiet()
			before := scrapeSignals(b, gh.metricsURLs)
			res.gatehouse, res.outputs = measure(b, gh.q, n, true)
			quiet()
			res.signals = scrapeSignals(b, gh.metricsURLs).perRollout(before, n)
		}
		if r%2 == 0 {
			runBase()
			runGatehouse()
		} else {
			runGatehouse()
			runBase()
		}
		b.Logf("round %d: %s; idle after %s", r+1, res, strings.Join(waits, ", "))
		waits = waits[:0]
		results = append(results, res)
	}
	b.StopTimer()
	reportRounds(b, results)
	gh.reportMemory(b)
}

// roundResult is one round of BenchmarkProductionTopology_FlywheelRounds.
type roundResult struct {
	base, gatehouse leaseFigures
	// outputs and baseOutputs are each side's output latencies.
	outputs, baseOutputs []time.Duration
	// signals are Gatehouse's workflow signals per rollout, by kind.
	signals string
}

func (r roundResult) claimsRatio() float64 { return r.gatehouse.claimsPerSec / r.base.claimsPerSec }
func (r roundResult) hbRatio(p float64) float64 {
	return pct(r.gatehouse.warm, p) / pct(r.base.warm, p)
}

func (r roundResult) String() string {
	return fmt.Sprintf("claims/s %.0f vs %.0f (%.0f%%); heartbeat p50 %.2f vs %.2f ms, p99 %.2f vs %.2f ms; output p50 %.2f vs %.2f ms; signals a rollout: %s",
		r.gatehouse.claimsPerSec, r.base.claimsPerSec, 100*r.claimsRatio(),
		pct(r.gatehouse.warm, 0.50), pct(r.base.warm, 0.50), pct(r.gatehouse.warm, 0.99), pct(r.base.warm, 0.99),
		pct(r.outputs, 0.50), pct(r.baseOutputs, 0.50), r.signals)
}

// reportRounds reports the median of each per-round figure and how many
// rounds met each of the targets.
func reportRounds(b *testing.B, rs []roundResult) {
	figure := func(f func(roundResult) float64) []float64 {
		out := make([]float64, len(rs))
		for i, r := range rs {
			out[i] = f(r)
		}
		return out
	}
	claims := figure(roundResult.claimsRatio)
	hb50 := figure(func(r roundResult) float64 { return r.hbRatio(0.50) })
	hb99 := figure(func(r roundResult) float64 { return r.hbRatio(0.99) })
	out50 := figure(func(r roundResult) float64 { return pct(r.outputs, 0.50) })
	for _, m := range []struct {
		unit   string
		values []float64
		met    func(float64) bool
	}{
		{"claims-ratio", claims, func(v float64) bool { return v >= 0.5 }},
		{"hb-p50-ratio", hb50, func(v float64) bool { return v <= 2 }},
		{"hb-p99-ratio", hb99, func(v float64) bool { return v <= 1 }},
		{"out-p50-ms", out50, func(v float64) bool { return v <= 20 }},
	} {
		b.ReportMetric(median(m.values), m.unit)
		met := 0
		for _, v := range m.values {
			if m.met(v) {
				met++
			}
		}
		b.ReportMetric(float64(met), m.unit+"-rounds-met")
	}
	b.ReportMetric(float64(len(rs)), "rounds")
}

// median is the middle of values (the mean of the middle two for an even
// count).
func median(values []float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benchRounds is GATEHOUSE_BENCH_ROUNDS, or def.
func benchRounds(b *testing.B, def int) int { return benchCount(b, "GATEHOUSE_BENCH_ROUNDS", def) }
