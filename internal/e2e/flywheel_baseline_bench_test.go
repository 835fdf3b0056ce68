package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models"
)

// lease is one leased rollout as a client holds it.
type lease struct{ ID, Key, Token string }

// claimAnswer is the part of a claim's answer the benchmarks read, from
// Gatehouse and from the plain baseline alike.
type claimAnswer struct {
	Rollouts []struct {
		RolloutID  string `json:"rollout_id"`
		APIKey     string `json:"api_key"`
		LeaseToken string `json:"lease_token"`
	} `json:"rollouts"`
}

// leaser is a rollout queue reached over loopback HTTP: Gatehouse's
// flywheel, or the plain Postgres baseline below.
type leaser struct {
	base, claimPath string
	claimToken      string
	hbPath          func(l lease) string
	// outPath is where a lease's output goes; nil for Gatehouse's route.
	outPath func(l lease) string
	hc      *http.Client
	// cpu, when set, meters each phase's CPU per request by process.
	cpu *cpuMeter
	// replicas, when set, are the api replicas' host:port: each new
	// connection goes to the next, whatever base names (see spreadDialer).
	replicas []string
}

// client is the load generator's HTTP client: keep-alive connections to
// base, or spread over q.replicas.
func (q leaser) client() *http.Client {
	t := &http.Transport{MaxIdleConnsPerHost: 64}
	if len(q.replicas) > 0 {
		t.DialContext = spreadDialer(q.replicas)
	}
	return &http.Client{Timeout: time.Minute, Transport: t}
}

// spreadDialer dials each new connection to the next of addrs in turn:
// the balancing of a Kubernetes Service (kube-proxy picks a backend per
// connection, and no proxy process sits on the path), where the front
// is an L7 proxy that re-balances every request.
func spreadDialer(addrs []string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var next atomic.Uint64
	var d net.Dialer
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addrs[(next.Add(1)-1)%uint64(len(addrs))])
	}
}

// BenchmarkFlywheelVsSkipLocked leases N rollouts and heartbeats each four times,
// on Gatehouse's dev stack (one Temporal workflow per rollout) with its
// SQLite database and with PostgreSQL, then on a plain PostgreSQL row lease
// (FOR UPDATE SKIP LOCKED with a fencing token and epoch, no Temporal)
// served over loopback HTTP the same way.
// Claims go 16 at a time from one client; heartbeats from 32 concurrent
// clients, in four rounds (hb-p50/p99 from the three warm rounds;
// hb-cold-p99 from the first); on Gatehouse every lease then posts its
// output from 32 concurrent clients (out-p50/p99-ms). Run:
//
//	go test ./internal/e2e -run '^$' -bench FlywheelVsSkipLocked -benchtime=1x
//
// (-bench 'FlywheelVsSkipLocked/.*/n=5000' for the 5,000-lease case alone:
// 5,000 leased at once, zero errors and no rollout leased twice, with the
// stack's memory). The baseline needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/postgres).
func BenchmarkFlywheelVsSkipLocked(b *testing.B) {
	for _, n := range []int{100, 1000, 2000, 5000} {
		for _, store := range []string{"sqlite", "pg"} {
			b.Run(fmt.Sprintf("gatehouse-%s/n=%d", store, n), func(b *testing.B) {
				env := map[string]string{}
				if store == "pg" {
					env["GATEHOUSE_DATABASE_URL"] = benchSchemaURL(b)
				}
				benchGatehouse(b, StartStack(b, StackOptions{Env: env}), n)
			})
		}
		b.Run(fmt.Sprintf("pg-skiplocked/n=%d", n), func(b *testing.B) {
			runLeaseBench(b, startSkipLockedQueue(b, n).leaser(), n)
		})
	}
}

// benchGatehouse enqueues n rollouts on stack s, runs the lease bench and
// the output round once the enqueue has settled (the embedded Temporal and worker have run the
// new workflows' first tasks, as on the production topology; settle-s says
// how long that took) and reports the memory of the stack's process
// (Temporal, API and worker in one; BenchmarkFlywheelScale has them apart).
func benchGatehouse(b *testing.B, s *Stack, n int) {
	enqueueRollouts(b, s, n, "bench ")
	meter := newSelfCPUMeter()
	settled := settle(meter, "bench")
	q := leaser{base: s.APIURL, claimPath: "/flywheel/claim", claimToken: s.APIKey,
		hbPath: func(l lease) string { return "/flywheel/rollouts/" + l.ID + "/heartbeat" }, cpu: meter}
	outputRound(b, q, runLeaseBench(b, q, n))
	b.ReportMetric(settled.Seconds(), "settle-s")
	reportInProcessMemory(b)
}

// warmRounds is how many heartbeat rounds follow the cold one.
const warmRounds = 3

// runLeaseBench claims n rollouts (failing on any rollout leased twice),
// then heartbeats every lease in 1+warmRounds rounds (failing on any answer but
// 200), reports claims/s, the latency of a claim (claim-p50/p99/max-ms) and
// heartbeat p50/p99, and returns the leases.
func runLeaseBench(b *testing.B, q leaser, n int) []lease {
	f, leased := measureLeases(b, q, n)
	b.StopTimer()
	b.ReportMetric(f.claimsPerSec, "claims/s")
	b.ReportMetric(pct(f.claims, 0.50), "claim-p50-ms")
	b.ReportMetric(pct(f.claims, 0.99), "claim-p99-ms")
	b.ReportMetric(pct(f.claims, 1), "claim-max-ms")
	b.ReportMetric(pct(f.warm, 0.50), "hb-p50-ms")
	b.ReportMetric(pct(f.warm, 0.99), "hb-p99-ms")
	b.ReportMetric(pct(f.cold, 0.99), "hb-cold-p99-ms")
	return leased
}

// leaseFigures is what one lease bench measured: the claim rate, and the
// sorted latencies of each claim of 16, of the cold heartbeat round and
// of the warm ones.
type leaseFigures struct {
	claimsPerSec       float64
	claims, cold, warm []time.Duration
}

// measureLeases is runLeaseBench without its report: it claims n rollouts
// 16 at a time from one client (failing on any rollout leased twice), then
// heartbeats every lease in 1+warmRounds rounds from 32 concurrent clients
// (failing on any answer but 200). q.cpu, when set, reports each phase's
// CPU per request.
func measureLeases(b *testing.B, q leaser, n int) (leaseFigures, []lease) {
	q.hc = q.client()
	b.ResetTimer()
	var f leaseFigures
	var leased []lease
	stopClaims := profilePhase(b, "claims")
	q.cpu.begin("claims")
	start := time.Now()
	for len(leased) < n {
		st := time.Now()
		var c claimAnswer
		if err := q.post(q.claimPath, q.claimToken, "", map[string]any{"max_rollouts": 16, "lease_s": 300}, &c); err != nil {
			b.Fatal(err)
		}
		f.claims = append(f.claims, time.Since(st))
		if len(c.Rollouts) == 0 {
			b.Fatalf("queue ran dry at %d", len(leased))
		}
		for _, r := range c.Rollouts {
			leased = append(leased, lease{r.RolloutID, r.APIKey, r.LeaseToken})
		}
	}
	f.claimsPerSec = float64(len(leased)) / time.Since(start).Seconds()
	slices.Sort(f.claims)
	q.cpu.reportAs(b, len(leased), "claim-cpu-ms-")
	stopClaims()
	seen := make(map[string]bool, len(leased))
	for _, l := range leased {
		if seen[l.ID] {
			b.Fatalf("rollout %s was leased twice", l.ID)
		}
		seen[l.ID] = true
	}

	// Round 1 meets cold connection pools on both sides; the warm rounds
	// after it are the steady state the headline percentiles come from
	// (every lease heartbeats warmRounds+1 times, as an agent heartbeating
	// every 5 s for 20 s does).
	stopProfile := profileHeartbeats(b)
	stopPhase := profilePhase(b, "heartbeats")
	f.cold = q.heartbeatRound(b, leased)
	q.cpu.begin("heartbeats")
	for range warmRounds {
		f.warm = append(f.warm, q.heartbeatRound(b, leased)...)
	}
	slices.Sort(f.warm)
	q.cpu.reportAs(b, len(f.warm), "hb-cpu-ms-")
	stopProfile()
	stopPhase()
	return f, leased
}

// profileHeartbeats writes a CPU profile of the heartbeat rounds alone to
// $GATEHOUSE_BENCH_HB_CPUPROFILE (suffixed with the sub-benchmark's name)
// when that is set; it returns the function that stops it.
func profileHeartbeats(b *testing.B) func() {
	path := os.Getenv("GATEHOUSE_BENCH_HB_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path + "." + strings.NewReplacer("/", "_", "=", "").Replace(b.Name()))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}
}

// outputTo is where l's output is posted.
func (q leaser) outputTo(l lease) string {
	if q.outPath != nil {
		return q.outPath(l)
	}
	return outputPath(l)
}

// heartbeatRound heartbeats every lease once from 32 concurrent clients and
// returns the sorted latencies.
func (q leaser) heartbeatRound(b *testing.B, leased []lease) []time.Duration {
	return q.round(b, leased, q.hbPath, nil)
}

// round posts body to path(lease) for every lease from 32 concurrent
// clients and returns the sorted latencies.
func (q leaser) round(b *testing.B, leased []lease, path func(lease) string, body any) []time.Duration {
	lat := make([]time.Duration, len(leased))
	errs := make(chan error, len(leased))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range work {
				st := time.Now()
				if err := q.post(path(leased[i]), leased[i].Key, leased[i].Token, body, nil); err != nil {
					errs <- err
				}
				lat[i] = time.Since(st)
			}
		})
	}
	for i := range leased {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatalf("lease round: %v", err)
	}
	slices.Sort(lat)
	return lat
}

// pct is the p-th percentile of sorted latencies, in milliseconds.
func pct(sorted []time.Duration, p float64) float64 {
	return float64(sorted[int(p*float64(len(sorted)-1))].Microseconds()) / 1000
}

// post sends body (nil for none) and decodes a 200 answer into out.
func (q leaser) post(path, bearer, leaseToken string, body, out any) error {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(http.MethodPost, q.base+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if leaseToken != "" {
		req.Header.Set("Flywheel-Lease-Token", leaseToken)
	}
	resp, err := q.hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %d", path, resp.StatusCode)
	}
	if out == nil {
		_, err = bytes.NewBuffer(nil).ReadFrom(resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Baseline SQL: the lease pattern from the ecosystem notes, with a fencing
// token and an epoch, and a heartbeat guarded on all three.
const (
	baselineSchema = `CREATE TABLE rollouts (id bigserial PRIMARY KEY, state text NOT NULL DEFAULT 'queued',
		lease_token text, lease_epoch int NOT NULL DEFAULT 0, lease_expires_at timestamptz,
		created_at timestamptz NOT NULL DEFAULT now(), output jsonb);
		CREATE INDEX rollouts_queue ON rollouts (created_at, id) WHERE state IN ('queued', 'leased')`
	baselineClaim = `WITH c AS (SELECT id FROM rollouts WHERE state = 'queued' OR (state = 'leased' AND lease_expires_at < now())
		ORDER BY created_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
		UPDATE rollouts r SET state = 'leased', lease_token = md5(random()::text || r.id), lease_epoch = r.lease_epoch + 1,
		lease_expires_at = now() + make_interval(secs => ?) FROM c WHERE r.id = c.id
		RETURNING r.id, r.lease_token, r.lease_epoch`
	baselineHeartbeat = `UPDATE rollouts SET lease_expires_at = now() + make_interval(secs => 300)
		WHERE id = ? AND lease_token = ? AND lease_epoch = ? AND state = 'leased' AND lease_expires_at > now()`
	// baselineOutput stores an output and ends the lease, guarded as the
	// heartbeat is.
	baselineOutput = `UPDATE rollouts SET state = 'done', output = ?::jsonb, lease_token = NULL
		WHERE id = ? AND lease_token = ? AND lease_epoch = ? AND state = 'leased' AND lease_expires_at > now()`
)

// benchSchemaURL is a fresh PostgreSQL schema, dropped after the benchmark
// (GATEHOUSE_TEST_DATABASE_URL, else the local server); it skips without one.
func benchSchemaURL(b *testing.B) string {
	b.Helper()
	base := os.Getenv("GATEHOUSE_TEST_DATABASE_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	admin, err := models.Open(base)
	if err != nil {
		b.Skipf("baseline needs PostgreSQL: %v", err)
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	schema := "bench_" + hex.EncodeToString(suffix)
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		b.Skipf("baseline needs PostgreSQL: %v", err)
	}
	b.Cleanup(func() {
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		closeGorm(admin)
	})
	return withSearchPathParam(base, schema)
}

// skipLockedQueue is the baseline lease server: where it listens, the
// schema behind it, and its process when it runs in one of its own.
type skipLockedQueue struct {
	URL string
	db  *gorm.DB
	// pid is the server's own process (startSkipLockedProcess); 0 when
	// it serves from this one.
	pid int
}

// refill empties the baseline's table and queues n fresh rows, so a
// later run meets the same table as the first.
func (q skipLockedQueue) refill(b *testing.B, n int) {
	b.Helper()
	if err := q.db.Exec("TRUNCATE rollouts").Error; err != nil {
		b.Fatal(err)
	}
	if err := q.db.Exec(`INSERT INTO rollouts (created_at) SELECT now() + make_interval(secs => g) FROM generate_series(1, ?) g`, n).Error; err != nil {
		b.Fatal(err)
	}
}

// cpuMeter meters the baseline's side of the machine: this process (the
// load generator, and the server when it serves from here), the server's
// own process as "server" when it has one, and PostgreSQL.
func (q skipLockedQueue) cpuMeter() *cpuMeter {
	m := newSelfAndPostgresCPUMeter()
	if q.pid != 0 {
		m.groups["server"] = func() []int { return []int{q.pid} }
	}
	return m
}

// leaser is the load generator's view of the baseline.
func (q skipLockedQueue) leaser() leaser {
	return leaser{base: q.URL, claimPath: "/claim", hbPath: func(l lease) string { return "/heartbeat/" + l.ID },
		outPath: func(l lease) string { return "/output/" + l.ID }, cpu: q.cpuMeter()}
}

// newSkipLockedSchema fills a fresh PostgreSQL schema with the baseline's
// table and n queued rows, and returns its URL and a pool on it.
func newSkipLockedSchema(b *testing.B, n int) (string, skipLockedQueue) {
	b.Helper()
	url := benchSchemaURL(b)
	db, err := models.Open(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { closeGorm(db) })
	if err := db.Exec(baselineSchema).Error; err != nil {
		b.Fatal(err)
	}
	q := skipLockedQueue{db: db}
	q.refill(b, n)
	return url, q
}

// startSkipLockedQueue serves the baseline from this process, beside the
// load generator: the match for gatehouse dev, which runs in this process
// too (BenchmarkFlywheelVsSkipLocked).
func startSkipLockedQueue(b *testing.B, n int) skipLockedQueue {
	b.Helper()
	_, q := newSkipLockedSchema(b, n)
	srv := httptest.NewServer(baselineMux(q.db))
	b.Cleanup(srv.Close)
	q.URL = srv.URL
	return q
}

// baselineMux serves POST /claim, POST /heartbeat/:id and POST
// /output/:id on db, keeping one idle connection per heartbeating client,
// so the baseline measures the lease and not connection set-up.
func baselineMux(db *gorm.DB) *http.ServeMux {
	if sqlDB, err := db.DB(); err == nil {
		sqlDB.SetMaxIdleConns(32)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /claim", func(w http.ResponseWriter, r *http.Request) { baselineClaimHandler(db, w, r) })
	mux.HandleFunc("POST /heartbeat/{id}", func(w http.ResponseWriter, r *http.Request) {
		baselineLeaseWrite(db, w, r, baselineHeartbeat)
	})
	mux.HandleFunc("POST /output/{id}", func(w http.ResponseWriter, r *http.Request) {
		var out struct {
			FinalText    *string           `json:"final_text"`
			ToolCalls    []json.RawMessage `json:"tool_calls"`
			LLMCallCount *int64            `json:"llm_call_count"`
		}
		body, err := io.ReadAll(r.Body)
		if err != nil || json.Unmarshal(body, &out) != nil || out.FinalText == nil {
			http.Error(w, "bad output", http.StatusBadRequest)
			return
		}
		baselineLeaseWrite(db, w, r, baselineOutput, string(body))
	})
	return mux
}

// baselineLeaseWrite runs statement, guarded by the request's lease token
// and epoch after args, and answers 200 when it changed the leased row.
func baselineLeaseWrite(db *gorm.DB, w http.ResponseWriter, r *http.Request, statement string, args ...any) {
	var token string
	var epoch int
	if _, err := fmt.Sscanf(r.Header.Get("Flywheel-Lease-Token"), "%32s.%d", &token, &epoch); err != nil {
		http.Error(w, "bad lease token", http.StatusBadRequest)
		return
	}
	res := db.Exec(statement, append(args, r.PathValue("id"), token, epoch)...)
	switch {
	case res.Error != nil:
		http.Error(w, res.Error.Error(), http.StatusServiceUnavailable)
	case res.RowsAffected != 1:
		http.Error(w, "lease lost", http.StatusConflict)
	default:
		_, _ = w.Write([]byte(`{"ok":true}`))
	}
}

// baselineClaimHandler leases up to max_rollouts rows in one statement.
func baselineClaimHandler(db *gorm.DB, w http.ResponseWriter, r *http.Request) {
	var req struct {
		Max    int `json:"max_rollouts"`
		LeaseS int `json:"lease_s"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Max < 1 || req.LeaseS < 1 {
		http.Error(w, "bad claim", http.StatusBadRequest)
		return
	}
	var rows []struct {
		ID         int64
		LeaseToken string
		LeaseEpoch int
	}
	if err := db.Raw(baselineClaim, req.Max, req.LeaseS).Scan(&rows).Error; err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	type claimedRow struct {
		RolloutID  string `json:"rollout_id"`
		LeaseToken string `json:"lease_token"`
	}
	out := struct {
		Rollouts []claimedRow `json:"rollouts"`
	}{Rollouts: []claimedRow{}}
	for _, row := range rows {
		out.Rollouts = append(out.Rollouts, claimedRow{fmt.Sprint(row.ID), fmt.Sprintf("%s.%d", row.LeaseToken, row.LeaseEpoch)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// closeGorm closes db's connection pool, so each sub-benchmark gives its
// PostgreSQL connections back (the server allows ~100).
func closeGorm(db *gorm.DB) {
	if sqlDB, err := db.DB(); err == nil {
		_ = sqlDB.Close()
	}
}

// withSearchPathParam points a PostgreSQL URL at schema.
func withSearchPathParam(url, schema string) string {
	sep := "?"
	if bytes.ContainsRune([]byte(url), '?') {
		sep = "&"
	}
	return url + sep + "search_path=" + schema
}
