package flywheel

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/libtnb/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// BenchmarkHeartbeat_SQLite is the database half of a heartbeat on the dev
// database: SQLite in WAL mode on one connection, as models.Open sets it
// up, 2,000 leased rollouts heartbeated by 32 concurrent callers, by the
// path ExtendLease takes there ("prepared": statements prepared once) and
// by the same path parsing every statement at each call ("parsed", as it
// ran before). The variants take turns, 1,000 heartbeats at a time, b.N
// rounds each led by the next variant. Reports <variant>-p50-ms, -p99-ms
// and -cpu-us (this process's CPU per heartbeat: SQLite runs in it).
//
//	go test ./models/flywheel -run '^$' -bench Heartbeat_SQLite -benchtime 5x
func BenchmarkHeartbeat_SQLite(b *testing.B) {
	dsn := "file:" + filepath.Join(b.TempDir(), "bench.db") +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := gorm.Open(sqlite.Open(dsn), &gorm.Config{SkipDefaultTransaction: true, TranslateError: true, Logger: logger.Discard})
	if err != nil {
		b.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		b.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1)
	b.Cleanup(func() { _ = sqlDB.Close() })
	holders := leaseAll(b, db, 2000)
	type variant struct {
		name string
		fn   func(*gorm.DB, Holder, time.Time) (Extension, error)
		lat  []time.Duration
		cpu  time.Duration
	}
	variants := []*variant{{"prepared", heartbeatPrepared, nil, 0}, {"parsed", heartbeatReadThenUpdate, nil, 0}}
	next := 0
	b.ResetTimer()
	for round := range b.N {
		for k := range variants {
			v := variants[(round+k)%len(variants)]
			before := processCPU(b)
			v.lat = append(v.lat, heartbeatBurst(b, db, holders[next:next+1000], v.fn)...)
			v.cpu += processCPU(b) - before
			next = (next + 1000) % len(holders)
		}
	}
	b.StopTimer()
	for _, v := range variants {
		slices.Sort(v.lat)
		p := func(q float64) float64 { return float64(v.lat[int(q*float64(len(v.lat)-1))].Microseconds()) / 1000 }
		b.ReportMetric(p(0.50), v.name+"-p50-ms")
		b.ReportMetric(p(0.99), v.name+"-p99-ms")
		b.ReportMetric(float64(v.cpu.Microseconds())/float64(len(v.lat)), v.name+"-cpu-us")
	}
}
