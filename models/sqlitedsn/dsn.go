// Package sqlitedsn is the one place the settings of Gatehouse's SQLite
// databases are written down, so models.Open and the benchmarks of the
// packages models imports (which cannot call models.Open) open SQLite the
// same way.
package sqlitedsn

import "strconv"

// WALAutocheckpointPages is how many pages the write-ahead log collects
// before SQLite copies them back into the database file. SQLite's default
// (1,000 pages, 4 MB) checkpoints every few claim bursts and writes the
// same hot index pages back each time; at 10,000 (40 MB) a burst's
// repeated writes of one page fold into one copy (BenchmarkClaim_SQLite in
// models/flywheel: 8,729-9,002 batched claims/s before, 10,926-11,504
// after). Commits are logged as before; only the copy back is rarer.
const WALAutocheckpointPages = 10000

// For is the driver DSN of the SQLite file at path: WAL journal,
// synchronous NORMAL (the log is synced at checkpoints: an operating
// system crash may lose the last commits but never consistency), a busy
// timeout, foreign keys enforced, the larger autocheckpoint, and write
// transactions that take their lock when they begin.
func For(path string) string {
	return "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=foreign_keys(1)&_pragma=wal_autocheckpoint(" + strconv.Itoa(WALAutocheckpointPages) + ")&_txlock=immediate"
}
