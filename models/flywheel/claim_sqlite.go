package flywheel

import (
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
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
	leases := make([]Lease, len(candidates))
	notices := make([]Notice, len(candidates))
	var sql strings.Builder
	sql.WriteString(grantSQLitePrefix)
	args := make([]any, 0, 4+6*len(candidates)+1)
	args = append(args, StatusLeased, lease.Seconds(), now, now)
	for i, r := range candidates {
		expires := now.Add(lease)
		if expires.After(r.DeadlineAt) {
			expires = r.DeadlineAt
		}
		locator := newLocator()
		g := mintSecrets(locator)
		g.ExpiresAt = expires
		keyHash, llmHash := Hash(g.APIKey), Hash(g.LLMToken)
		if i > 0 {
			sql.WriteString(", ")
		}
		sql.WriteString(grantSQLiteRow)
		args = append(args, r.ID, r.LeaseEpoch, Hash(g.LeaseToken), keyHash, llmHash, expires)
		epoch := r.LeaseEpoch + 1
		leases[i] = Lease{RolloutID: r.ID, Epoch: epoch, APIKeyHash: keyHash, LLMTokenHash: llmHash, ClaimedBy: who.CredentialID,
			GrantedAt: now, ExpiresAt: expires, Locator: locator}
		due, _ := GrantNoticeDue(now, expires, lease)
		notices[i] = Notice{RolloutID: r.ID, Epoch: epoch, Kind: NoticeGrant, ExpiresAt: &leases[i].ExpiresAt, DueAt: due, CreatedAt: now}
		r.Status, r.LeaseEpoch, r.LeaseExpiresAt, r.LeaseSeconds = StatusLeased, epoch, &leases[i].ExpiresAt, lease.Seconds()
		r.LeaseGrantedAt, r.LeaseGrantedExpiry = &leases[i].GrantedAt, &leases[i].ExpiresAt
		g.Rollout = r
		grants[i] = g
	}
	sql.WriteString(grantSQLiteSuffix)
	args = append(args, StatusQueued)
	res := tx.Exec(sql.String(), args...)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected != int64(len(candidates)) {
		return nil, errClaimRaced
	}
	if err := tx.Create(&leases).Error; err != nil {
		return nil, err
	}
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&notices).Error; err != nil {
		return nil, err
	}
	return grants, nil
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
