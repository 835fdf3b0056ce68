package models

import (
	"net/url"
	"strings"

	"gorm.io/gorm"
)

// Lease heartbeats commit without waiting for the WAL flush. A heartbeat
// only moves a lease's expiry forward; the lease stays fenced by its
// epoch and token in the same row. Should PostgreSQL itself crash, the
// heartbeats of its last moments (at most about three wal_writer_delay,
// 600 ms by default) are lost: the leases they extended may then expire
// earlier than their holders were told, so a holder's next heartbeat or
// output is fenced (409) and the rollout is leased again. Nothing is
// granted twice and no accepted output is lost: claims, outputs and every
// other write keep synchronous commit on the main pool.

// AsyncCommitURL is url with synchronous_commit=off as a session
// parameter of every connection, for the heartbeat pool; ok is false for
// a database that is not PostgreSQL (SQLite has no such setting).
func AsyncCommitURL(raw string) (string, bool) {
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	q := u.Query()
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return u.String(), true
}

// OpenHeartbeatPool opens the pool lease heartbeats commit through:
// PostgreSQL sessions with synchronous_commit off, bounded by pool. It
// returns nil (use the main pool) for a database that is not PostgreSQL.
func OpenHeartbeatPool(raw string, pool Pool) (*gorm.DB, error) {
	async, ok := AsyncCommitURL(raw)
	if !ok {
		return nil, nil
	}
	return OpenPool(async, pool)
}
