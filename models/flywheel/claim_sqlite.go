package flywheel

import (
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
)

// candidateColumns are the columns a SQLite claim reads of each candidate,
// in the order claimSQLite scans them: the rollout as its claimer sees it
// (grantColumns' rollout half) and the epoch the lease is fenced on.
const candidateColumns = "id, owner, status, turn_input, task_id, metadata, deadline_at, max_attempts, lease_epoch, created_at"

// grantSQLitePrefix and grantSQLiteSuffix enclose the VALUES rows of the
// SQLite claim's one UPDATE: every candidate leased at once, each row still
// a compare-and-swap on the status and epoch its claim read. A VALUES row
// is (id, epoch read, token hash, api key hash, LLM token hash, expiry).
const (
	grantSQLitePrefix = `UPDATE flywheel_rollouts SET status = ?, lease_epoch = v.column2 + 1,
		lease_token_hash = v.column3, api_key_hash = v.column4, llm_token_hash = v.column5,
		lease_seconds = ?, lease_expires_at = v.column6, lease_granted_at = ?, lease_granted_expiry = v.column6,
		lease_heartbeats = 0, llm_calls_observed = 0, updated_at = ?
		FROM (VALUES `
	grantSQLiteRow    = "(?, ?, ?, ?, ?, ?)"
	grantSQLiteSuffix = `) AS v
		WHERE flywheel_rollouts.id = v.column1 AND flywheel_rollouts.status = ? AND flywheel_rollouts.lease_epoch = v.column2`
)

// The SQLite claim's two INSERTs, one row per leased rollout, in
// positional statements on the transaction's connection: each lease's
// history row, and each grant's notice. Claims share the dev database's
// one connection with every heartbeat; GORM's reflective Create cost more
// than SQLite's own work (BenchmarkClaim_SQLite).
const (
	leaseSQLitePrefix  = "INSERT INTO flywheel_leases (rollout_id, epoch, api_key_hash, claimed_by, granted_at, expires_at, llm_token_hash, locator) VALUES "
	leaseSQLiteRow     = "(?, ?, ?, ?, ?, ?, ?, ?)"
	noticeSQLitePrefix = "INSERT INTO flywheel_notices (rollout_id, epoch, kind, expires_at, due_at, created_at) VALUES "
	noticeSQLiteRow    = "(?, ?, ?, ?, ?, ?)"
	noticeSQLiteSuffix = " ON CONFLICT DO NOTHING"
)

// errClaimRaced is a SQLite claim whose rows changed between its read and
// its update, which its serialized transaction rules out; the transaction
// is rolled back and the claim may be retried.
var errClaimRaced = errors.New("flywheel: claimed rows changed inside a serialized transaction")

// claimSQLite leases up to max claimable rollouts inside tx (serialized:
// BEGIN IMMEDIATE on the one connection) in four statements whatever the
// batch: read the candidates, lease them in one UPDATE, and write their
// history rows and their grant notices in one INSERT each.
func claimSQLite(tx *gorm.DB, who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, error) {
	candidates, err := claimCandidates(tx, who, max, now)
	if err != nil || len(candidates) == 0 {
		return nil, err
	}
	grants := make([]Grant, len(candidates))
	args := make([]any, 0, 4+6*len(candidates)+1)
	args = append(args, StatusLeased, lease.Seconds(), now, now)
	leaseArgs := make([]any, 0, 8*len(candidates))
	noticeArgs := make([]any, 0, 6*len(candidates))
	for i, r := range candidates {
		expires := now.Add(lease)
		if expires.After(r.DeadlineAt) {
			expires = r.DeadlineAt
		}
		locator := newLocator()
		g := mintSecrets(locator)
		g.ExpiresAt = expires
		keyHash, llmHash := Hash(g.APIKey), Hash(g.LLMToken)
		args = append(args, r.ID, r.LeaseEpoch, Hash(g.LeaseToken), keyHash, llmHash, expires)
		epoch := r.LeaseEpoch + 1
		leaseArgs = append(leaseArgs, r.ID, epoch, keyHash, who.CredentialID, now, expires, llmHash, locator)
		due, _ := GrantNoticeDue(now, expires, lease)
		noticeArgs = append(noticeArgs, r.ID, epoch, NoticeGrant, expires, due, now)
		grantedAt := now
		r.Status, r.LeaseEpoch, r.LeaseExpiresAt, r.LeaseSeconds = StatusLeased, epoch, &expires, lease.Seconds()
		r.LeaseGrantedAt, r.LeaseGrantedExpiry = &grantedAt, &expires
		g.Rollout = r
		grants[i] = g
	}
	args = append(args, StatusQueued)
	ctx, conn := tx.Statement.Context, tx.Statement.ConnPool
	res, err := conn.ExecContext(ctx, valuesStatement(grantSQLitePrefix, grantSQLiteRow, grantSQLiteSuffix, len(candidates)), args...)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(candidates)) {
		return nil, errors.Join(errClaimRaced, err)
	}
	if _, err := conn.ExecContext(ctx, valuesStatement(leaseSQLitePrefix, leaseSQLiteRow, "", len(candidates)), leaseArgs...); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, valuesStatement(noticeSQLitePrefix, noticeSQLiteRow, noticeSQLiteSuffix, len(candidates)), noticeArgs...); err != nil {
		return nil, err
	}
	return grants, nil
}

// valuesStatement is prefix, n copies of row separated by commas, then
// suffix: a multi-row INSERT's text.
func valuesStatement(prefix, row, suffix string, n int) string {
	var b strings.Builder
	b.Grow(len(prefix) + n*(len(row)+2) + len(suffix))
	b.WriteString(prefix)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	b.WriteString(suffix)
	return b.String()
}

// claimCandidates reads, in enqueue order, up to max queued rollouts whose
// deadline has not passed and that who may take.
func claimCandidates(tx *gorm.DB, who Claimant, max int, now time.Time) ([]Rollout, error) {
	q := who.scope(tx.Model(&Rollout{}).Select(candidateColumns).Where("status = ? AND deadline_at > ?", StatusQueued, now)).
		Order("created_at, id").Limit(max)
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	out := make([]Rollout, 0, max)
	for rows.Next() {
		var r Rollout
		if err := rows.Scan(&r.ID, &r.Owner, &r.Status, &r.TurnInput, &r.TaskID, &r.Metadata, &r.DeadlineAt,
			&r.MaxAttempts, &r.LeaseEpoch, &r.CreatedAt); err != nil {
			return nil, err
		}
		r.DeadlineAt, r.CreatedAt = r.DeadlineAt.UTC(), r.CreatedAt.UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}
