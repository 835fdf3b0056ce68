package flywheel

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"
	moderncsqlite "modernc.org/sqlite"
)

// TestPreparedSQLite_TransactionsReuseTheConnectionsStatements: queries
// prepared once on the one connection run in later transactions, and on
// the pool itself, without SQLite parsing them again (no driver-level
// prepare or direct exec), while other queries and other connection
// kinds go as they are.
func TestPreparedSQLite_TransactionsReuseTheConnectionsStatements(t *testing.T) {
	ctx := context.Background()
	db, parses := parseCountingSQLite(t)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	const insert, count, other = "INSERT INTO t (x) VALUES (?)", "SELECT count(*) FROM t", "SELECT sum(x) FROM t"
	var p preparedSQLite
	if err := p.prepare(ctx, db, insert, count); err != nil {
		t.Fatal(err)
	}
	if err := p.prepare(ctx, db, "SELECT nonsense FROM nowhere"); err == nil {
		t.Fatal("a statement SQLite cannot prepare was prepared")
	}
	parses.Store(0)
	for i := range 3 {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		conn := p.in(tx)
		if _, err := conn.ExecContext(ctx, insert, i); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRowContext(ctx, count).Scan(&n); err != nil || n != i+1 {
			t.Fatalf("count in transaction %d: %d %v", i, n, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.in(db).ExecContext(ctx, insert, 0); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := p.in(db).QueryRowContext(ctx, count).Scan(&n); err != nil || n != 4 {
		t.Fatalf("count on the pool: %d %v", n, err)
	}
	if got := parses.Load(); got != 0 {
		t.Fatalf("SQLite parsed the prepared statements %d times in 3 transactions and on the pool, want 0", got)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	var sum int
	if err := p.in(tx).QueryRowContext(ctx, other).Scan(&sum); err != nil || sum != 3 || parses.Load() != 1 {
		t.Fatalf("a query not prepared: sum %d, %v, parsed %d times (want 3, once)", sum, err, parses.Load())
	}
	var nilP *preparedSQLite
	gormPool := &gorm.PreparedStmtDB{ConnPool: db}
	if nilP.in(tx) != gorm.ConnPool(tx) || p.in(gormPool) != gorm.ConnPool(gormPool) || nilP.prepare(ctx, db, insert) != nil {
		t.Fatal("a nil cache, or a pool that is neither a transaction nor database/sql's, must be answered as it is")
	}
}

// parseCountingSQLite is a one-connection SQLite database whose parses
// are counted: each statement the driver prepares, and each it is handed
// to run directly (which it parses on the spot).
func parseCountingSQLite(t *testing.T) (*sql.DB, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	db := sql.OpenDB(parseCounter{dsn: "file:" + filepath.Join(t.TempDir(), "p.db"), n: &n})
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	return db, &n
}

// parseCounter opens modernc SQLite connections that count parses.
type parseCounter struct {
	dsn string
	n   *atomic.Int64
}

func (c parseCounter) Connect(context.Context) (driver.Conn, error) {
	conn, err := (&moderncsqlite.Driver{}).Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return parseCountingConn{Conn: conn, n: c.n}, nil
}

func (c parseCounter) Driver() driver.Driver { return &moderncsqlite.Driver{} }

// parseCountingConn is a driver connection counting each parse.
type parseCountingConn struct {
	driver.Conn
	n *atomic.Int64
}

func (c parseCountingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.n.Add(1)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c parseCountingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c parseCountingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c parseCountingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.Add(1)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}
