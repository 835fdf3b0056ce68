package flywheel

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/libtnb/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/gatehouse/gatehouse/models/sqlitedb"
)

// BenchmarkHeartbeat_SQLite is the database half of a heartbeat on the dev
// database: SQLite in WAL mode on one connection, as models.Open sets it
// up, 2,000 leased rollouts heartbeated by 32 concurrent callers, by the
// path ExtendLease takes there ("prepared": statements prepared once) and
// by the same path parsing every statement at each call ("parsed", as it
// ran before). The variants take turns, 1,000 heartbeats at a time, b.N
// rounds each led by the next variant. Reports <variant>-p50-ms, -p99-ms
// and -cpu-us (this process's CPU per heartbeat: SQLite runs in it). A
// third variant, "columns", is ExtendLease's path: the fence's columns
// read by position on database/sql (heartbeatSQLite); "deadline" is the
// same under a context with a deadline, as a request's is (the driver
// then watches each statement: withoutDeadline); "batched" is the path
// the API takes, through a HeartbeatBatcher (extendSQLite), whose one
// goroutine runs the heartbeats waiting together in one transaction.
//
//	go test ./models/flywheel -run '^$' -bench Heartbeat_SQLite -benchtime 5x
func BenchmarkHeartbeat_SQLite(b *testing.B) {
	db := benchSQLite(b)
	holders := leaseAll(b, db, 2000, nil)
	batcher := NewHeartbeatBatcher(db)
	batched := func(_ *gorm.DB, h Holder, now time.Time) (Extension, error) {
		return batcher.Extend(context.Background(), h, now)
	}
	deadline := func(db *gorm.DB, h Holder, now time.Time) (Extension, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return heartbeatSQLite(db.WithContext(ctx), h, now)
	}
	variants := []*heartbeatVariant{{name: "batched", fn: batched}, {name: "columns", fn: heartbeatSQLite},
		{name: "deadline", fn: deadline}, {name: "prepared", fn: heartbeatPrepared}, {name: "parsed", fn: heartbeatReadThenUpdate}}
	heartbeatInTurns(b, db, holders, variants, func(*heartbeatVariant) {})
	reportHeartbeatVariants(b, variants, "-cpu-us")
}

// benchSQLite opens a new SQLite database as models.Open sets one up
// (sqlitedb.Open: its settings, one connection, its checkpointer), closed
// after the test or benchmark; models imports this package, so its
// internal tests cannot call models.Open.
func benchSQLite(tb testing.TB) *gorm.DB {
	sqlDB, err := sqlitedb.Open(filepath.Join(tb.TempDir(), "bench.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = sqlDB.Close() })
	db, err := gorm.Open(sqlite.New(sqlite.Config{Conn: sqlDB}), &gorm.Config{SkipDefaultTransaction: true, TranslateError: true, Logger: logger.Discard})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}
