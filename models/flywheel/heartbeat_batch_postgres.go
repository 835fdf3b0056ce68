package flywheel

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// heartbeatsPostgres is heartbeatPostgres for a batch of heartbeats of
// distinct rollouts, given as parallel arrays ($1 ids, $2 key hashes, $3
// token hashes, $4 arrival times; $5 the leased status): each row's
// fenced compare-and-swap at its own heartbeat's time, in one autocommit
// statement. It returns the rows it extended; each heartbeat it did not
// was refused by the WHERE for its own reason. Each rollout is found by
// its primary key, as alone.
const heartbeatsPostgres = `UPDATE flywheel_rollouts r
	SET lease_expires_at = LEAST(b.at + make_interval(secs => r.lease_seconds), r.deadline_at),
		lease_heartbeats = r.lease_heartbeats + 1, updated_at = b.at
	FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS b(id, key_hash, token_hash, at)
	WHERE r.id = b.id AND r.api_key_hash = b.key_hash AND r.lease_token_hash = b.token_hash AND ` + rowStatusIs + `$5
		AND r.output_at IS NULL AND r.deadline_at > b.at AND r.lease_expires_at > b.at
	RETURNING r.id, r.lease_epoch, r.lease_expires_at, r.lease_granted_at, r.lease_granted_expiry`

// heartbeatsArgs are heartbeatsPostgres's parameters for batch, in lock
// order (inLockOrder).
func heartbeatsArgs(batch []*waitingBeat) []any {
	ids, keys, tokens, ats := make([]string, len(batch)), make([]string, len(batch)), make([]string, len(batch)), make([]time.Time, len(batch))
	for i, x := range inLockOrder(batch) {
		ids[i], keys[i], tokens[i], ats[i] = x.h.RolloutID, Hash(x.h.APIKey), Hash(x.h.LeaseToken), x.now
	}
	return []any{ids, keys, tokens, ats, StatusLeased}
}

// extendAllOnConn runs heartbeatsPostgres for batch on one of pool's
// connections through pgx itself, as extendOnConn does, and returns the
// extended rows by rollout id.
func extendAllOnConn(ctx context.Context, pool *sql.DB, batch []*waitingBeat) (map[string]leaseRow, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	extended := make(map[string]leaseRow, len(batch))
	err = conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("heartbeat: connection of driver %T, not pgx", driverConn)
		}
		rows, err := c.Conn().Query(ctx, heartbeatsPostgres, heartbeatsArgs(batch)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id  string
				row leaseRow
			)
			if err := rows.Scan(append([]any{&id}, row.fields()...)...); err != nil {
				return err
			}
			extended[id] = row
		}
		return rows.Err()
	})
	return extended, err
}
