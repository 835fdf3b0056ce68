package flywheel

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// BenchmarkHeartbeat_Postgres isolates the database half of a heartbeat (no
// HTTP, no Temporal): 2,000 leased rollouts heartbeated by 32 concurrent
// callers on PostgreSQL, by the one-statement path Heartbeat takes there
// ("one", the grant read from the rollout's row, through pgx on a
// connection the pool lends), by the same statement through database/sql's
// QueryRow ("sql"), through GORM's Raw and Find ("gorm"), by that statement as it
// was with the grant joined from the lease history ("join"), and by the
// read-then-update path ("rtu": SELECT, UPDATE, SELECT of the history),
// with the pool keeping 32 idle connections. The variants take turns,
// 1,000 heartbeats at a time, b.N rounds each led by the next variant, so
// a change of machine load hits them alike. Reports <variant>-p50-ms and
// -p99-ms, and <variant>-client-cpu-us: this process's CPU per heartbeat.
// Run:
//
//	GATEHOUSE_TEST_DATABASE_URL=postgres://… go test ./models/flywheel -run '^$' -bench Heartbeat_Postgres -benchtime 5x
func BenchmarkHeartbeat_Postgres(b *testing.B) {
	db, holders := leasedRollouts(b, 2000)
	sqlDB, err := db.DB()
	if err != nil {
		b.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(32)
	variants := []*heartbeatVariant{
		{name: "one", idle: 32, fn: heartbeatOnPgx}, {name: "sql", idle: 32, fn: heartbeatOnDatabaseSQL},
		{name: "gorm", idle: 32, fn: heartbeatThroughGORM},
		{name: "join", idle: 32, fn: heartbeatJoiningHistory}, {name: "rtu", idle: 32, fn: heartbeatReadThenUpdate},
	}
	heartbeatInTurns(b, db, holders, variants, func(v *heartbeatVariant) { sqlDB.SetMaxIdleConns(v.idle) })
	reportHeartbeatVariants(b, variants, "-client-cpu-us")
}

// heartbeatOnPgx is the heartbeat as ExtendLease runs it on a pool:
// heartbeatPostgres through pgx on a connection the pool lends.
func heartbeatOnPgx(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	return heartbeatOneStatement(context.Background(), db, h, now)
}

// heartbeatOnDatabaseSQL is the same statement through database/sql's
// QueryRow and Scan (as inside a transaction), the path a pool took
// before extendOnConn.
func heartbeatOnDatabaseSQL(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	row, err := extendViaSQL(context.Background(), db.Statement.ConnPool, h, now)
	if err != nil {
		return Extension{}, err
	}
	return Extension{Epoch: row.epoch, ExpiresAt: row.expires.UTC(), GrantedAt: row.grantedAt.Time, GrantedExpiry: row.grantedExpiry.Time}, nil
}

// heartbeatVariant is one way to heartbeat that a benchmark compares, with
// what it measured.
type heartbeatVariant struct {
	name string
	idle int // idle connections the pool keeps while it runs
	fn   func(*gorm.DB, Holder, time.Time) (Extension, error)
	lat  []time.Duration
	cpu  time.Duration // this process's CPU time over the bursts
}

// heartbeatInTurns runs the variants in turns, 1,000 heartbeats at a time,
// b.N rounds each led by the next variant (the first burst after a pause
// runs slower, and that must not land on one variant, nor a change of
// machine load); setup runs before each burst.
func heartbeatInTurns(b *testing.B, db *gorm.DB, holders []Holder, variants []*heartbeatVariant, setup func(*heartbeatVariant)) {
	next := 0
	b.ResetTimer()
	for round := range b.N {
		for k := range variants {
			v := variants[(round+k)%len(variants)]
			setup(v)
			before := processCPU(b)
			v.lat = append(v.lat, heartbeatBurst(b, db, holders[next:next+1000], v.fn)...)
			v.cpu += processCPU(b) - before
			next = (next + 1000) % len(holders)
		}
	}
	b.StopTimer()
}

// reportHeartbeatVariants reports each variant's p50 and p99 in ms and its
// CPU per heartbeat in µs (metric <name><cpuSuffix>).
func reportHeartbeatVariants(b *testing.B, variants []*heartbeatVariant, cpuSuffix string) {
	for _, v := range variants {
		slices.Sort(v.lat)
		p := func(q float64) float64 { return float64(v.lat[int(q*float64(len(v.lat)-1))].Microseconds()) / 1000 }
		b.ReportMetric(p(0.50), v.name+"-p50-ms")
		b.ReportMetric(p(0.99), v.name+"-p99-ms")
		b.ReportMetric(float64(v.cpu.Microseconds())/float64(len(v.lat)), v.name+cpuSuffix)
	}
}

// heartbeatJoinPostgres is heartbeatPostgres as it was before the grant
// was kept on the rollout's row: the same compare-and-swap, with the grant
// joined from the lease history.
const heartbeatJoinPostgres = `UPDATE flywheel_rollouts r
	SET lease_expires_at = LEAST(CAST(@now AS timestamptz) + make_interval(secs => r.lease_seconds), r.deadline_at),
		lease_heartbeats = r.lease_heartbeats + 1, updated_at = @now
	FROM flywheel_leases l
	WHERE r.id = @id AND r.api_key_hash = @key AND r.lease_token_hash = @token AND r.status = @leased
		AND r.output_at IS NULL AND r.deadline_at > @now AND r.lease_expires_at > @now
		AND l.rollout_id = r.id AND l.epoch = r.lease_epoch
	RETURNING r.lease_epoch, r.lease_expires_at, l.granted_at, l.expires_at AS granted_expiry`

// heartbeatJoiningHistory runs heartbeatJoinPostgres (the bench's
// reference for the statement before).
func heartbeatJoiningHistory(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	return heartbeatGORMRaw(db, heartbeatJoinPostgres, h, now)
}

// heartbeatGORMRaw runs a named-parameter heartbeat statement through
// GORM's Raw and Find, as the heartbeat ran before it went to database/sql.
func heartbeatGORMRaw(db *gorm.DB, statement string, h Holder, now time.Time) (Extension, error) {
	var rows []struct {
		LeaseEpoch                               int64
		LeaseExpiresAt, GrantedAt, GrantedExpiry time.Time
	}
	err := db.Raw(statement, map[string]any{
		"now": now, "id": h.RolloutID, "key": Hash(h.APIKey), "token": Hash(h.LeaseToken), "leased": StatusLeased,
	}).Find(&rows).Error
	if err != nil || len(rows) != 1 {
		return Extension{}, errors.Join(err, ErrStaleLease)
	}
	return Extension{Epoch: rows[0].LeaseEpoch, ExpiresAt: rows[0].LeaseExpiresAt, GrantedAt: rows[0].GrantedAt, GrantedExpiry: rows[0].GrantedExpiry}, nil
}

// processCPU is the CPU time (user and system) this process has used: the
// client side of the heartbeats, PostgreSQL being another process.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heartbeatGORMPostgres is heartbeatPostgres with named parameters, as it
// ran through GORM before the heartbeat went to database/sql directly.
const heartbeatGORMPostgres = `UPDATE flywheel_rollouts r
	SET lease_expires_at = LEAST(CAST(@now AS timestamptz) + make_interval(secs => r.lease_seconds), r.deadline_at),
		lease_heartbeats = r.lease_heartbeats + 1, updated_at = @now
	WHERE r.id = @id AND r.api_key_hash = @key AND r.lease_token_hash = @token AND r.status = @leased
		AND r.output_at IS NULL AND r.deadline_at > @now AND r.lease_expires_at > @now
	RETURNING r.lease_epoch, r.lease_expires_at, r.lease_granted_at AS granted_at, r.lease_granted_expiry AS granted_expiry`

// heartbeatThroughGORM runs heartbeatGORMPostgres through GORM (the
// bench's reference for the client-side cost before).
func heartbeatThroughGORM(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
	return heartbeatGORMRaw(db, heartbeatGORMPostgres, h, now)
}

// heartbeatBurst heartbeats every holder once from 32 goroutines and
// returns the latencies.
func heartbeatBurst(b *testing.B, db *gorm.DB, holders []Holder, fn func(*gorm.DB, Holder, time.Time) (Extension, error)) []time.Duration {
	var next atomic.Int64
	lat := make([]time.Duration, len(holders))
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(len(holders)) {
					return
				}
				st := time.Now()
				if _, err := fn(db.WithContext(context.Background()), holders[i], dbTime(time.Now())); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(st)
			}
		})
	}
	wg.Wait()
	return lat
}

// leasedRollouts migrates a fresh schema on GATEHOUSE_TEST_DATABASE_URL
// (dropped afterwards) and leases n new rollouts for an hour.
func leasedRollouts(tb testing.TB, n int) (*gorm.DB, []Holder) {
	tb.Helper()
	db := freshPostgresSchema(tb)
	return db, leaseAll(tb, db, n, nil)
}

// freshPostgresSchema opens a new schema on GATEHOUSE_TEST_DATABASE_URL,
// dropped after the test; it skips without that variable, except in CI.
func freshPostgresSchema(tb testing.TB) *gorm.DB {
	tb.Helper()
	base := os.Getenv("GATEHOUSE_TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("CI") != "" {
			tb.Fatal("GATEHOUSE_TEST_DATABASE_URL is not set; CI must provide PostgreSQL")
		}
		tb.Skip("needs GATEHOUSE_TEST_DATABASE_URL")
	}
	cfg := &gorm.Config{TranslateError: true, Logger: logger.Discard}
	admin, err := gorm.Open(postgres.Open(base), cfg)
	if err != nil {
		tb.Fatalf("postgres: %v", err)
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	schema := "bench_" + hex.EncodeToString(suffix)
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		tb.Fatalf("postgres: %v", err)
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	db, err := gorm.Open(postgres.Open(base+sep+"search_path="+schema), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if s, err := db.DB(); err == nil {
			_ = s.Close()
		}
		admin.Exec("DROP SCHEMA " + schema + " CASCADE")
		if s, err := admin.DB(); err == nil {
			_ = s.Close()
		}
	})
	return db
}

// leaseAll migrates db and leases n new rollouts for an hour; beforeClaim
// (when not nil) runs once they are all queued, before the first claim.
func leaseAll(tb testing.TB, db *gorm.DB, n int, beforeClaim func()) []Holder {
	tb.Helper()
	return leaseAllFor(tb, db, n, beforeClaim, time.Hour, time.Now())
}

// leaseAllFor is leaseAll with each lease granted at now for lease.
func leaseAllFor(tb testing.TB, db *gorm.DB, n int, beforeClaim func(), lease time.Duration, now time.Time) []Holder {
	tb.Helper()
	for _, m := range Migrations() {
		if err := m.Up(db); err != nil {
			tb.Fatal(err)
		}
	}
	ctx := context.Background()
	for range n {
		if _, _, err := Enqueue(ctx, db, NewRollout{ID: NewRolloutID(), TurnInput: "bench", DeadlineAt: now.Add(2 * time.Hour), MaxAttempts: 3}); err != nil {
			tb.Fatal(err)
		}
	}
	if beforeClaim != nil {
		beforeClaim()
	}
	var holders []Holder
	for len(holders) < n {
		gs, err := Claim(ctx, db, Claimant{CredentialID: "bench", AllProjects: true}, MaxClaimBatch, lease, now)
		if err != nil || len(gs) == 0 {
			tb.Fatalf("claim: %v (%d leased)", err, len(holders))
		}
		for _, g := range gs {
			holders = append(holders, Holder{RolloutID: g.Rollout.ID, APIKey: g.APIKey, LeaseToken: g.LeaseToken})
		}
	}
	return holders
}
