package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models"
)

// commitMeter counts PostgreSQL transaction commits per call in each of a
// stack's databases (pg_stat_database), which says how many round trips
// to disk a call costs: Temporal's persistence, its visibility store and
// Gatehouse's own.
type commitMeter struct {
	db     *gorm.DB
	prefix string
	start  map[string]int64
}

// newCommitMeter meters the databases whose names start with prefix when
// the benchmark profiles (benchProfileDirEnv): each reading waits out
// PostgreSQL's statistics delay, which would slow every run.
func newCommitMeter(t testing.TB, prefix string) *commitMeter {
	url := os.Getenv("GATEHOUSE_TEST_DATABASE_URL")
	if url == "" || os.Getenv(benchProfileDirEnv) == "" {
		return nil
	}
	db, err := models.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return &commitMeter{db: db, prefix: prefix}
}

// commits reads each matching database's commit count. An idle backend
// reports its statistics to pg_stat_database within ten seconds
// (PGSTAT_IDLE_INTERVAL), so a reading waits that long first.
func (m *commitMeter) commits() map[string]int64 {
	time.Sleep(11 * time.Second)
	_ = m.db.Exec("SELECT pg_stat_clear_snapshot()").Error
	var rows []struct {
		Datname    string
		XactCommit int64
	}
	_ = m.db.Raw("SELECT datname, xact_commit FROM pg_stat_database WHERE datname LIKE ?", m.prefix+"%").Scan(&rows).Error
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Datname] = r.XactCommit
	}
	return out
}

// begin records the counts so far.
func (m *commitMeter) begin() {
	if m != nil {
		m.start = m.commits()
	}
}

// report adds commits per call for every database that committed, named
// by the part after the prefix. Reads outside a transaction count as
// commits too, and so does the background work in the phase's time
// (compare with the idle phase).
func (m *commitMeter) report(b *testing.B, calls int) {
	if m == nil || calls == 0 {
		return
	}
	for name, n := range m.commits() {
		if d := n - m.start[name]; d > 0 {
			b.ReportMetric(float64(d)/float64(calls), "commits/op-"+strings.TrimPrefix(strings.TrimPrefix(name, m.prefix), "_"))
		}
	}
}
