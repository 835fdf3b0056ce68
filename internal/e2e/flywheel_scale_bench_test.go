package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkFlywheelScale measures how the flywheel's cost grows with the
// number of open rollout workflows, with the api and the worker as the
// separate processes production runs (children of this test binary, on
// PostgreSQL); this process keeps the embedded Temporal server (and the dev
// stack's own API, idle). Each case leases `leased` rollouts, heartbeats
// each twice from 32 concurrent clients (as BenchmarkFlywheelVsSkipLocked),
// posts each output, and reports claims/s, hb-p50/p99-ms (warm round),
// hb-cold-p99-ms, out-p50/p99-ms, and the
// resident memory of each process: VmRSS after the run and VmHWM (peak) of
// the api and the worker, and VmRSS of the Temporal (dev) process.
// idle=K adds K more rollouts that stay queued: open workflows, each with a
// deadline timer, that no one claims. Run:
//
//	go test ./internal/e2e -run '^$' -bench FlywheelScale -benchtime=1x
//
// (-bench 'FlywheelScale/leased=5000' for the 5,000 case alone).
//
// It needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL, else the local server).
func BenchmarkFlywheelScale(b *testing.B) {
	for _, c := range []struct{ leased, idle int }{{100, 0}, {1000, 0}, {2000, 0}, {5000, 0}, {1000, 2000}} {
		b.Run(fmt.Sprintf("leased=%d/idle=%d", c.leased, c.idle), func(b *testing.B) { benchScale(b, c.leased, c.idle) })
	}
}

// benchScale runs one case of BenchmarkFlywheelScale.
func benchScale(b *testing.B, leased, idle int) {
	dbURL := benchSchemaURL(b)
	s := StartStack(b, StackOptions{NoWorker: true, Env: map[string]string{"GATEHOUSE_DATABASE_URL": dbURL}})
	worker := StartRoleProcess(b, "worker", s.WorkerEnv(dbURL))
	env := s.WorkerEnv(dbURL)
	env["GATEHOUSE_HTTP_ADDR"] = freeAddr(b)
	base := "http://" + env["GATEHOUSE_HTTP_ADDR"]
	api := StartRoleProcess(b, "api", env)
	waitFor(b, time.Minute, func() bool {
		r, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		_ = r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	dev := *s.DevStack
	dev.APIURL = base
	via := &Stack{DevStack: &dev, DataDir: s.DataDir, Env: s.Env, t: b}
	enqueueRollouts(b, via, leased, "bench ")
	enqueueRollouts(b, via, idle, "idle ")

	q := leaser{base: base, claimPath: "/flywheel/claim", claimToken: s.APIKey,
		hbPath: func(l lease) string { return "/flywheel/rollouts/" + l.ID + "/heartbeat" }}
	outputRound(b, q, runLeaseBench(b, q, leased))
	for _, p := range []struct {
		name string
		pid  int
	}{{"api", api.cmd.Process.Pid}, {"worker", worker.cmd.Process.Pid}} {
		m, err := procMemory(p.pid)
		if err != nil {
			b.Fatalf("%s memory: %v", p.name, err)
		}
		b.ReportMetric(m.RSSMB, p.name+"-rss-MB")
		b.ReportMetric(m.HWMMB, p.name+"-hwm-MB")
	}
	if m, err := procMemory(os.Getpid()); err == nil {
		b.ReportMetric(m.RSSMB, "temporal-rss-MB")
	}
}

// enqueueRollouts starts n rollout workflows through the operator API, 250
// to a request.
func enqueueRollouts(b *testing.B, s *Stack, n int, prefix string) {
	b.Helper()
	for i := 0; i < n; i += 250 {
		items := make([]any, min(250, n-i))
		for j := range items {
			items[j] = map[string]any{"turn_input": fmt.Sprint(prefix, i+j), "deadline_s": 3600}
		}
		if r := s.Do(b, http.MethodPost, "/operator/v1/rollouts", s.OperatorToken, map[string]any{"rollouts": items}); r.Status != 201 {
			b.Fatalf("enqueue: %d %s", r.Status, r.Body)
		}
	}
}

// memory is a process's resident memory in MB.
type memory struct{ RSSMB, HWMMB float64 }

// procMemory reads VmRSS (now) and VmHWM (peak) of pid from /proc.
func procMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	defer func() { _ = f.Close() }()
	var m memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		if err != nil {
			return memory{}, fmt.Errorf("%s: %q: %w", k, v, err)
		}
		if k == "VmRSS" {
			m.RSSMB = kb / 1024
		} else {
			m.HWMMB = kb / 1024
		}
	}
	return m, sc.Err()
}

// reportInProcessMemory reports, for a stack running in this process
// (Temporal, API and worker together), the process's VmRSS and the Go heap
// in use. VmHWM is left out: it is the peak of every earlier sub-benchmark.
func reportInProcessMemory(b *testing.B) {
	if m, err := procMemory(os.Getpid()); err == nil {
		b.ReportMetric(m.RSSMB, "dev-rss-MB")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "dev-heap-MB")
}
