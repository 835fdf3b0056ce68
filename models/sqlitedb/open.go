// Package sqlitedb is the one place Gatehouse's SQLite databases are set
// up, so models.Open and the benchmarks of the packages models imports
// (which cannot call models.Open) open SQLite the same way: the settings
// of each connection, and the checkpointer that copies the write-ahead
// log back into the database file off the path of every commit.
package sqlitedb

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"

	moderncsqlite "modernc.org/sqlite"
)

// BackstopCheckpointPages is the write-ahead log size, in pages, at which
// a committing connection checkpoints by itself. The checkpointer keeps the
// log far below it; it bounds the log only if the checkpointer cannot run.
const BackstopCheckpointPages = 50000

// dsn is the driver DSN of the SQLite file at path: WAL journal,
// synchronous NORMAL (the log is synced at checkpoints: an operating
// system crash may lose the last commits but never consistency), a busy
// timeout, foreign keys enforced, the backstop autocheckpoint, write
// transactions that take their lock when they begin, and times stored and
// read as the GORM driver does when it opens a DSN itself.
func dsn(path string) string {
	return "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=foreign_keys(1)&_pragma=wal_autocheckpoint(" + strconv.Itoa(BackstopCheckpointPages) + ")&_txlock=immediate" +
		"&_texttotime=1&_inttotime=1&_time_format=sqlite"
}

// Open opens the SQLite file at path on one connection (SQLite has one
// writer; a second connection would only wait for it) and, unless path is
// ":memory:", starts its checkpointer, which closing the database stops.
func Open(path string) (*sql.DB, error) {
	db, _, err := open(path, defaultCheckpointing)
	return db, err
}

// open is Open with the checkpointer's settings, returning the
// checkpointer too (nil for ":memory:").
func open(path string, every checkpointing) (*sql.DB, *checkpointer, error) {
	connector, err := moderncsqlite.NewConnector(dsn(path))
	if err != nil {
		return nil, nil, fmt.Errorf("open sqlite: %w", err)
	}
	var ck *checkpointer
	if path != ":memory:" { // an in-memory database has no log to copy
		ck = newCheckpointer(sql.OpenDB(connector), every)
		connector = closingConnector{Connector: connector, checkpointer: ck}
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	if ck != nil {
		ck.start(db)
	}
	return db, ck, nil
}

// closingConnector is a Connector whose database, when closed, stops its
// checkpointer: sql.DB.Close closes a Connector that is an io.Closer.
type closingConnector struct {
	driver.Connector
	checkpointer *checkpointer
}

// Close stops the checkpointer.
func (c closingConnector) Close() error { return c.checkpointer.Close() }
