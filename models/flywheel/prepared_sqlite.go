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
// when conn is a transaction; any other conn (or any conn, for a nil p)
// is answered as it is.
func (p *preparedSQLite) in(conn gorm.ConnPool) gorm.ConnPool {
	tx, ok := conn.(*sql.Tx)
	if !ok || p == nil {
		return conn
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return preparedTx{Tx: tx, stmts: p.stmts}
}

// preparedTx is a transaction that runs each query of stmts through its
// prepared statement, and any other query as it is.
type preparedTx struct {
	*sql.Tx
	stmts map[string]*sql.Stmt
}

// ExecContext runs query, prepared when it is one of the statements.
func (t preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s, ok := t.stmts[query]; ok {
		return t.StmtContext(ctx, s).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

// QueryContext runs query, prepared when it is one of the statements.
func (t preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s, ok := t.stmts[query]; ok {
		return t.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query, prepared when it is one of the statements.
func (t preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s, ok := t.stmts[query]; ok {
		return t.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
