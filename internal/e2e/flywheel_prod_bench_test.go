package e2e

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkProductionTopology_FlywheelVsSkipLocked runs the lease bench of
// BenchmarkFlywheelVsSkipLocked side by side, in one run, on the plain
// PostgreSQL SKIP LOCKED lease and on the production topology (Temporal and
// Gatehouse on PostgreSQL, 2 api + 2 workers, load through the round-robin
// front, or spread by connection over the api replicas), then posts every
// rollout's output and reports the output latency and the api and worker
// processes' memory. On the production topology the lease phases start
// once the enqueue has settled (settle: Temporal and the workers have run
// the new workflows' first tasks), as the baseline's enqueue is a bare
// INSERT. The baseline takes the same outputs (it stores each in its row).
// Run:
//
//	go test ./internal/e2e -run '^$' -bench ProductionTopology_Flywheel -benchtime=1x
//
// GATEHOUSE_BENCH_FLYWHEEL_ROLLOUTS=<n> leases n rollouts instead of 2,000
// (a deeper queue: the claims then pick from n queued at once).
func BenchmarkProductionTopology_FlywheelVsSkipLocked(b *testing.B) {
	for _, n := range []int{benchRollouts(b, 2000)} {
		// The baseline in a process of its own, as each api replica is
		// (the figure the targets compare with), and in the load
		// generator's process, as the dev benchmark runs it.
		b.Run(fmt.Sprintf("pg-skiplocked/n=%d", n), func(b *testing.B) {
			q := startSkipLockedProcess(b, n).leaser()
			outputRound(b, q, runLeaseBench(b, q, n))
		})
		b.Run(fmt.Sprintf("pg-skiplocked-inproc/n=%d", n), func(b *testing.B) {
			q := startSkipLockedQueue(b, n).leaser()
			outputRound(b, q, runLeaseBench(b, q, n))
		})
		// front: every request through the round-robin L7 front;
		// spread: connections spread over the api replicas as a
		// Kubernetes Service does, with no proxy process on the path.
		for _, spread := range []string{"front", "spread"} {
			b.Run(fmt.Sprintf("gatehouse-prod-%s/n=%d", spread, n), func(b *testing.B) {
				// Production's pool sizing (the chart's defaults), not the
				// test stack's smaller one.
				p := startProdStack(b, "GATEHOUSE_DATABASE_MAX_CONNS=16", "GATEHOUSE_DATABASE_MAX_IDLE_CONNS=16")
				enqueueRollouts(b, p.Stack, n, "bench ")
				q := leaser{base: p.APIURL, claimPath: "/flywheel/claim", claimToken: p.APIKey,
					hbPath: func(l lease) string { return "/flywheel/rollouts/" + l.ID + "/heartbeat" }, cpu: newCPUMeter(p.Prod)}
				// The lease phases are timed once the enqueue's workflow
				// starts have run (settle-s says how long that took).
				settled := settle(q.cpu, "temporal", "worker", "postgres-temporal")
				if spread == "spread" {
					q.replicas = hostPorts(b, p.Prod.APIURLs)
				}
				leased := runLeaseBench(b, q, n)
				b.ReportMetric(settled.Seconds(), "settle-s")
				outputRound(b, q, leased)
				reportProcessMemory(b, p)
			})
		}
	}
}

// outputRound posts every lease's output from 32 concurrent clients
// (failing on any answer but 200) and reports out-p50/p99-ms.
func outputRound(b *testing.B, q leaser, leased []lease) {
	outs := postOutputs(b, q, leased)
	b.ReportMetric(pct(outs, 0.50), "out-p50-ms")
	b.ReportMetric(pct(outs, 0.99), "out-p99-ms")
}

// benchOutput is the output every benchmark rollout reports.
var benchOutput = map[string]any{"final_text": "bench", "tool_calls": []any{}, "llm_call_count": 0}

// outputPath is where a lease's output is posted.
func outputPath(l lease) string { return "/flywheel/rollouts/" + l.ID + "/output" }

// postOutputs posts every lease's output from 32 concurrent clients
// (failing on any answer but 200) and returns the sorted latencies.
func postOutputs(b *testing.B, q leaser, leased []lease) []time.Duration {
	q.hc = q.client()
	stop := profilePhase(b, "outputs")
	q.cpu.begin("outputs")
	outs := q.round(b, leased, q.outputTo, benchOutput)
	q.cpu.reportAs(b, len(outs), "out-cpu-ms-")
	stop()
	return outs
}

// reportProcessMemory reports the largest resident memory (now and peak)
// among the stack's api processes and among its worker processes.
func reportProcessMemory(b *testing.B, p *prodStack) {
	reportRoleMemory(b, "api", pids(p.Prod.APIs))
	reportRoleMemory(b, "worker", pids(p.Prod.Workers))
}

// reportRoleMemory reports the largest resident memory, now and peak
// (<role>-rss-MB, <role>-hwm-MB), among the processes of one role.
func reportRoleMemory(b *testing.B, role string, procs []int) {
	var rss, hwm float64
	for _, pid := range procs {
		if m, err := procMemory(pid); err == nil {
			rss, hwm = max(rss, m.RSSMB), max(hwm, m.HWMMB)
		}
	}
	b.ReportMetric(rss, role+"-rss-MB")
	b.ReportMetric(hwm, role+"-hwm-MB")
}

// hostPorts is each base URL's host:port.
func hostPorts(b *testing.B, urls []string) []string {
	out := make([]string, len(urls))
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = u.Host
	}
	return out
}

// benchRollouts is $GATEHOUSE_BENCH_FLYWHEEL_ROLLOUTS, or def when unset.
func benchRollouts(b *testing.B, def int) int {
	return benchCount(b, "GATEHOUSE_BENCH_FLYWHEEL_ROLLOUTS", def)
}

// benchCount is the positive count in environment variable name, or def
// when it is unset.
func benchCount(b *testing.B, name string, def int) int {
	raw := os.Getenv(name)
	if raw == "" {
		return def
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive count", name, raw)
	}
	return n
}
