package flywheel

import (
	"context"
	"database/sql"
	"maps"
	"sync"

	"gorm.io/gorm"
)

// preparedSQLite keeps statements a dev-database transaction runs on
// every request prepared on its one connection, so SQLite parses each
// once rather than once a call: parsing was over half of what an output
// cost the connection (BenchmarkOutputBatch_SQLite). Statements are
// prepared on the pool, outside any transaction (with one connection, a
// prepare on the pool inside a transaction would wait for itself); a
// transaction runs them through Tx.StmtContext, which database/sql
// answers with the statement already prepared on that connection.
type preparedSQLite struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt // replaced, never changed, once published
}

// prepare prepares on pool each of queries not prepared yet. On an error
// the queries not prepared are sent as they are, parsed per call. A nil
// p prepares nothing.
func (p *preparedSQLite) prepare(ctx context.Context, pool gorm.ConnPool, queries ...string) error {
	db, ok := pool.(*sql.DB)
	if !ok || p == nil {
		return nil // a pool of another kind prepares, or not, by itself
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var next map[string]*sql.Stmt
	for _, q := range queries {
		if _, ok := p.stmts[q]; ok {
			continue
		}
		stmt, err := db.PrepareContext(ctx, q)
		if err != nil {
			p.publish(next)
			return err
		}
		if next == nil {
			next = maps.Clone(p.stmts)
			if next == nil {
				next = map[string]*sql.Stmt{}
			}
		}
		next[q] = stmt
	}
	p.publish(next)
	return nil
}

// publish makes next the statements in use, unless it is nil.
func (p *preparedSQLite) publish(next map[string]*sql.Stmt) {
	if next != nil {
		p.stmts = next
	}
}

// in is conn answering the prepared statements from their preparation
// when conn is a transaction or the pool itself; any other conn (or any
// conn, for a nil p) is answered as it is.
func (p *preparedSQLite) in(conn gorm.ConnPool) gorm.ConnPool {
	if p == nil {
		return conn
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch c := conn.(type) {
	case *sql.Tx:
		return preparedConn{ConnPool: c, stmts: p.stmts, on: c.StmtContext}
	case *sql.DB:
		return preparedConn{ConnPool: c, stmts: p.stmts}
	}
	return conn
}

// preparedConn is a transaction or pool running each query of stmts
// through its prepared statement, and any other query as it is.
type preparedConn struct {
	gorm.ConnPool
	stmts map[string]*sql.Stmt
	// on is a statement as the transaction runs it (Tx.StmtContext); nil
	// on the pool, which runs it on whichever connection is free.
	on func(context.Context, *sql.Stmt) *sql.Stmt
}

// prepared is query's prepared statement on c, if it is one of stmts.
func (c preparedConn) prepared(ctx context.Context, query string) (*sql.Stmt, bool) {
	s, ok := c.stmts[query]
	if ok && c.on != nil {
		s = c.on(ctx, s)
	}
	return s, ok
}

// ExecContext runs query, prepared when it is one of the statements.
func (c preparedConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s, ok := c.prepared(ctx, query); ok {
		return s.ExecContext(ctx, args...)
	}
	return c.ConnPool.ExecContext(ctx, query, args...)
}

// QueryContext runs query, prepared when it is one of the statements.
func (c preparedConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s, ok := c.prepared(ctx, query); ok {
		return s.QueryContext(ctx, args...)
	}
	return c.ConnPool.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query, prepared when it is one of the statements.
func (c preparedConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s, ok := c.prepared(ctx, query); ok {
		return s.QueryRowContext(ctx, args...)
	}
	return c.ConnPool.QueryRowContext(ctx, query, args...)
}

// withoutDeadline is db running its statements under a context that
// never ends, for a batcher's SQLite statements: under a context that can
// end, the driver starts a goroutine and sets a progress handler for
// every statement (modernc's interruptOnDone). In the dev process, where
// the embedded Temporal server keeps a large heap, garbage is what makes
// a burst meet a collection; a heartbeat allocated 7.1 KB under a
// deadline and 4.6 KB without. A SQLite statement waits on no network; a
// lock it waits for is bounded by the busy timeout (sqlitedb.Open).
func withoutDeadline(db *gorm.DB) *gorm.DB {
	return db.WithContext(context.Background())
}
