package flywheel

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// leaseRow is what heartbeatPostgres returns: the lease's epoch, its new
// expiry, and its grant (NULL for a lease granted before the row kept
// its grant).
type leaseRow struct {
	epoch                    int64
	expires                  time.Time
	grantedAt, grantedExpiry pgtype.Timestamptz
}

// heartbeatArgs are heartbeatPostgres's parameters for h at now.
func heartbeatArgs(h Holder, now time.Time) []any {
	return []any{now, h.RolloutID, Hash(h.APIKey), Hash(h.LeaseToken), StatusLeased}
}

// fields are where a heartbeatPostgres row scans into, in column order.
func (r *leaseRow) fields() []any {
	return []any{&r.epoch, &r.expires, &r.grantedAt, &r.grantedExpiry}
}

// extendOnConn runs heartbeatPostgres on one of pool's connections through
// pgx itself: database/sql's row machinery (a Rows per query, value
// converters per column, a new value per nullable column) costs a
// heartbeat more allocations than the rest of its request. The pool
// still lends and takes back the connection, so its bounds, idle
// connections and health checks hold.
func extendOnConn(ctx context.Context, pool *sql.DB, h Holder, now time.Time) (leaseRow, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return leaseRow{}, err
	}
	defer func() { _ = conn.Close() }()
	var row leaseRow
	err = conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("heartbeat: connection of driver %T, not pgx", driverConn)
		}
		return c.Conn().QueryRow(ctx, heartbeatPostgres, heartbeatArgs(h, now)...).Scan(row.fields()...)
	})
	return row, err
}

// extendViaSQL runs heartbeatPostgres through database/sql, on a
// transaction or any pool GORM was given that is not a *sql.DB.
func extendViaSQL(ctx context.Context, pool gorm.ConnPool, h Holder, now time.Time) (leaseRow, error) {
	var row leaseRow
	err := pool.QueryRowContext(ctx, heartbeatPostgres, heartbeatArgs(h, now)...).Scan(row.fields()...)
	return row, err
}
