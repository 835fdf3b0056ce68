package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/prodlike"
)

// cpuMeter adds up the CPU time (user + system, from /proc) that groups of
// processes spend while a benchmark phase runs, so a latency figure comes
// with where the machine's cores went: the Temporal server, the api
// replicas, the workers, PostgreSQL and this process (client and front).
type cpuMeter struct {
	groups map[string]func() []int
	start  map[string]float64
	// pprof is the Temporal server's pprof address: with
	// benchProfileDirEnv set, begin also takes its CPU profile.
	pprof string
}

// newCPUMeter meters the production topology's processes and every
// PostgreSQL process on the machine (a quiet machine's are the stack's):
// Gatehouse's backends, Temporal's, and the server's own processes.
func newCPUMeter(p *prodlike.Stack) *cpuMeter {
	pids := func(procs []*prodlike.Proc) func() []int {
		return func() []int {
			var out []int
			for _, pr := range procs {
				out = append(out, pr.Pid())
			}
			return out
		}
	}
	return &cpuMeter{pprof: p.TemporalPprof, groups: map[string]func() []int{
		"temporal": pids([]*prodlike.Proc{p.Temporal}), "api": pids(p.APIs), "worker": pids(p.Workers),
		"postgres": postgresPids, "postgres-temporal": temporalPostgresPids, "postgres-background": backgroundPostgresPids,
		"bench": thisProcess,
	}}
}

// begin records every group's CPU time so far; with benchProfileDirEnv
// set it also profiles the Temporal server for temporalProfileSeconds
// into <dir>/temporal.<phase>.cpu.
func (m *cpuMeter) begin(phase string) {
	if m == nil {
		return
	}
	if dir := os.Getenv(benchProfileDirEnv); dir != "" && m.pprof != "" {
		go fetchProfile("http://"+m.pprof+"/debug/pprof/profile?seconds="+strconv.Itoa(temporalProfileSeconds),
			filepath.Join(dir, "temporal."+phase+".cpu"))
	}
	m.start = map[string]float64{}
	for name, pids := range m.groups {
		m.start[name] = cpuSeconds(pids())
	}
}

// report adds each group's CPU milliseconds per call since begin.
func (m *cpuMeter) report(b *testing.B, calls int) { m.reportAs(b, calls, "cpu-ms/op-") }

// reportAs is report with the metrics' unit prefix (one per phase when a
// benchmark meters several).
func (m *cpuMeter) reportAs(b *testing.B, calls int, unit string) {
	if m == nil || calls == 0 {
		return
	}
	total := 0.0
	for name, pids := range m.groups {
		ms := (cpuSeconds(pids()) - m.start[name]) * 1000 / float64(calls)
		total += ms
		b.ReportMetric(ms, unit+name)
	}
	b.ReportMetric(total, unit+"total")
}

// cpuSeconds is the user + system time of the processes (a process that
// exited since counts nothing, which is why phases are metered short).
func cpuSeconds(pids []int) float64 {
	total := 0.0
	for _, pid := range pids {
		raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command name (which may hold spaces) start
		// at state; utime and stime are the 12th and 13th after it.
		s := string(raw)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 13 {
			continue
		}
		utime, _ := strconv.ParseFloat(fields[11], 64)
		stime, _ := strconv.ParseFloat(fields[12], 64)
		total += (utime + stime) / clockTicks
	}
	return total
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times on Linux.
const clockTicks = 100

// postgresPids lists the PostgreSQL backends serving Gatehouse's (and
// any other non-Temporal) database connections.
func postgresPids() []int { return postgresProcesses(pgGatehouse) }

// temporalPostgresPids lists the PostgreSQL backends connected to a
// Temporal database (named *_temporal or *_temporal_vis).
func temporalPostgresPids() []int { return postgresProcesses(pgTemporal) }

// backgroundPostgresPids lists PostgreSQL's own processes: the postmaster,
// WAL writer, checkpointer, background writer and autovacuum workers.
func backgroundPostgresPids() []int { return postgresProcesses(pgBackground) }

// Kinds of PostgreSQL process, told apart by their titles.
const (
	pgGatehouse = iota
	pgTemporal
	pgBackground
)

// postgresProcesses lists the PostgreSQL processes of one kind. A client
// backend's title is "postgres: <cluster>: <user> <database> <client>
// <state>"; the server's own processes name their role instead.
func postgresProcesses(kind int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		title, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if postgresKind(string(title)) == kind {
			out = append(out, pid)
		}
	}
	return out
}

// postgresKind classifies a PostgreSQL process by its title.
func postgresKind(title string) int {
	// A client backend names its peer: "127.0.0.1(40312)", or "[local]"
	// over a Unix socket.
	client := strings.Contains(title, "(") || strings.Contains(title, "[local]")
	if !client || strings.Contains(title, "autovacuum") {
		return pgBackground
	}
	for _, f := range strings.Fields(title) {
		if strings.HasSuffix(f, "_temporal") || strings.HasSuffix(f, "_temporal_vis") {
			return pgTemporal
		}
	}
	return pgGatehouse
}

// newSelfCPUMeter meters this process alone: the dev stack runs in it.
func newSelfCPUMeter() *cpuMeter {
	return &cpuMeter{groups: map[string]func() []int{"bench": thisProcess}}
}

// temporalProfileSeconds is how long the Temporal server is profiled per
// phase (keep the phase at least this long).
const temporalProfileSeconds = 8

// fetchProfile saves the profile url serves into path.
func fetchProfile(url, path string) {
	resp, err := http.Get(url)
	if err != nil {
		return
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode == http.StatusOK {
		_ = os.WriteFile(path, raw, 0o600)
	}
}

// newSelfAndPostgresCPUMeter meters this process and PostgreSQL: the
// plain lease server runs in this process.
func newSelfAndPostgresCPUMeter() *cpuMeter {
	return &cpuMeter{groups: map[string]func() []int{"bench": thisProcess, "postgres": postgresPids, "postgres-background": backgroundPostgresPids}}
}

// thisProcess is the benchmark's own process (client, front, and the dev
// stack or the plain lease server when they run in it).
func thisProcess() []int { return []int{os.Getpid()} }

func TestPostgresKind_TellsBackendsOfEachDatabaseFromTheServersOwn(t *testing.T) {
	for title, want := range map[string]int{
		"postgres: 15/main: postgres x_gatehouse 127.0.0.1(40312) idle":      pgGatehouse,
		"postgres: 15/main: postgres x_temporal 127.0.0.1(40313) idle":       pgTemporal,
		"postgres: 15/main: postgres x_temporal_vis 127.0.0.1(40314) UPDATE": pgTemporal,
		"postgres: 15/main: postgres gatehouse_ci_1 [local] idle":            pgGatehouse,
		"postgres: 15/main: walwriter ":                                      pgBackground,
		"postgres: 15/main: autovacuum worker x_gatehouse":                   pgBackground,
		"/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main": pgBackground,
	} {
		if got := postgresKind(title); got != want {
			t.Errorf("postgresKind(%q) = %d, want %d", title, got, want)
		}
	}
}
