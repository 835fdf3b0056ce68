package flywheel_test

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"
)

// countedSQLite is db with every statement counted at the connection, as
// CountedPostgres counts them at the driver: those GORM builds and those
// sent positionally on its connection alike (transactions' BEGIN and
// COMMIT are not counted).
func countedSQLite(t *testing.T, db *gorm.DB) (*gorm.DB, *atomic.Int64) {
	t.Helper()
	pool, ok := db.Statement.ConnPool.(*sql.DB)
	if !ok {
		t.Fatalf("connection pool is %T, want *sql.DB", db.Statement.ConnPool)
	}
	var n atomic.Int64
	counted := db.WithContext(context.Background()) // a statement of its own
	counted.Statement.ConnPool = &countingDB{countingPool: countingPool{pool: pool, n: &n}, db: pool}
	return counted, &n
}

// countingConn is what a pool and a transaction share: the four calls
// that send statements.
type countingConn interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// countingPool counts each statement sent through pool.
type countingPool struct {
	pool countingConn
	n    *atomic.Int64
}

func (c *countingPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return c.pool.PrepareContext(ctx, query)
}

func (c *countingPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	c.n.Add(1)
	return c.pool.ExecContext(ctx, query, args...)
}

func (c *countingPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c.n.Add(1)
	return c.pool.QueryContext(ctx, query, args...)
}

func (c *countingPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	c.n.Add(1)
	return c.pool.QueryRowContext(ctx, query, args...)
}

// countingDB is the counted pool, whose transactions count too.
type countingDB struct {
	countingPool
	db *sql.DB
}

// BeginTx is gorm.ConnPoolBeginner: GORM runs the transaction on the
// counting transaction it answers.
func (c *countingDB) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	tx, err := c.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &countingTx{countingPool: countingPool{pool: tx, n: c.n}, tx: tx}, nil
}

// countingTx is a counted transaction.
type countingTx struct {
	countingPool
	tx *sql.Tx
}

func (c *countingTx) Commit() error   { return c.tx.Commit() }
func (c *countingTx) Rollback() error { return c.tx.Rollback() }
