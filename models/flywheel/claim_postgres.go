package flywheel

import (
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// claimPostgres is a whole claim in one autocommit statement, one round
// trip: pick up to $3 claimable rows, locked FOR UPDATE SKIP LOCKED (the
// lock re-checks status on the row's latest version and holds it to
// commit, so the update joins by primary key alone), pair each with a set
// of fresh secret hashes by rank, lease them, and write each lease's
// history row and grant notice (due as GrantNoticeDue says). The plaintext
// secrets never reach the database; only their hashes do. {{pick}} is the
// claimant's pick (claimPickAllProjects or claimPickListed), whose
// parameters follow the twelve of claimStatement. It answers grantColumns.
// Its parameters are positional and it runs on database/sql directly, as
// the heartbeat does: GORM's named-parameter rewriting of this text cost
// more of the api's CPU than anything else of a claim but the statement.
const claimPostgres = `WITH picked AS (
		{{pick}}
	), secrets AS (
		SELECT * FROM unnest(string_to_array($4, ','), string_to_array($5, ','), string_to_array($6, ','))
			WITH ORDINALITY AS s(token_hash, key_hash, llm_hash, n)
	), granted AS (
		UPDATE flywheel_rollouts r SET status = $7, lease_epoch = r.lease_epoch + 1,
			lease_token_hash = s.token_hash, api_key_hash = s.key_hash, llm_token_hash = s.llm_hash,
			lease_seconds = CAST($8 AS double precision), lease_expires_at = LEAST(CAST($2 AS timestamptz) + make_interval(secs => CAST($8 AS double precision)), r.deadline_at),
			lease_granted_at = $2, lease_granted_expiry = LEAST(CAST($2 AS timestamptz) + make_interval(secs => CAST($8 AS double precision)), r.deadline_at),
			lease_heartbeats = 0, llm_calls_observed = 0, updated_at = $2
		FROM picked p JOIN secrets s ON s.n = p.n
		WHERE r.id = p.id
		RETURNING r.id, r.owner, r.status, r.turn_input, r.task_id, r.metadata, r.deadline_at,
			r.max_attempts, r.lease_epoch, r.lease_seconds, r.lease_expires_at, r.lease_granted_at,
			r.lease_granted_expiry, r.created_at, r.api_key_hash, r.llm_token_hash, p.n AS secret_n
	), history AS (
		INSERT INTO flywheel_leases (rollout_id, epoch, api_key_hash, llm_token_hash, claimed_by, granted_at, expires_at, heartbeats, llm_calls)
		SELECT id, lease_epoch, api_key_hash, llm_token_hash, $9, $2, lease_expires_at, 0, 0 FROM granted
	), notices AS (
		INSERT INTO flywheel_notices (rollout_id, epoch, kind, expires_at, due_at, created_at)
		SELECT id, lease_epoch, $10, lease_expires_at,
			GREATEST(CAST($11 AS timestamptz), lease_expires_at - make_interval(secs => $12)), $2 FROM granted
	)
	SELECT ` + grantColumns + ` FROM granted ORDER BY created_at, id`

// The picks of a claim, with their parameters from $13 on. An
// all-projects key (the unrestricted rollouts, its own, and every
// project's) picks through flywheel_claimable, whose plan does not depend
// on the statistics (migrations_claimable.go): $13 the owners it takes
// whole, $14 the owner prefix it takes. A key with listed owners ($13)
// picks inline, where the planner chooses between the claim index and the
// owner index by how much of the queue those owners hold.
const (
	claimPickAllProjects = `SELECT id, n FROM flywheel_claimable($1, $2, $3, $13, $14)`
	claimPickListed      = `SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM (
			SELECT id, created_at FROM flywheel_rollouts
			WHERE status = $1 AND deadline_at > $2 AND owner = ANY($13)
			ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED) locked`
)

// The claim statement with each pick, built once.
var (
	claimAllProjects = strings.Replace(claimPostgres, "{{pick}}", claimPickAllProjects, 1)
	claimListed      = strings.Replace(claimPostgres, "{{pick}}", claimPickListed, 1)
)

// claimPick is who's claim statement and the arguments of its pick
// ($13 on).
func claimPick(who Claimant) (string, []any) {
	if who.AllProjects {
		return claimAllProjects, []any{[]string{OwnerUnrestricted, KeyOwner(who.CredentialID)}, OwnerProjectPrefix + "%"}
	}
	return claimListed, []any{who.listedOwners()}
}

// grantColumns are the columns a PostgreSQL claim reads back of each
// leased rollout, in the order claimOneStatement scans them: the rollout
// as its claimer sees it, the lease just granted, and the rank of the
// secrets it took. The other columns (hashes just written, counters just
// reset, terminal fields still empty) are not read back, and the scan is
// by position, not by GORM's reflection (BenchmarkClaim_Postgres).
const grantColumns = `id, owner, status, turn_input, task_id, metadata, deadline_at,
	max_attempts, lease_epoch, lease_seconds, lease_expires_at, lease_granted_at,
	lease_granted_expiry, created_at, secret_n`

// claimOneStatement runs claimPostgres with max fresh sets of secrets.
func claimOneStatement(db *gorm.DB, who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, error) {
	secrets, statement, args := claimStatement(who, max, lease, now)
	return runClaim(db, secrets, statement, args)
}

// runClaim runs a bound claim statement and pairs each leased row with
// the secrets of its rank.
func runClaim(db *gorm.DB, secrets []Grant, statement string, args []any) ([]Grant, error) {
	max := len(secrets)
	rows, err := db.Statement.ConnPool.QueryContext(db.Statement.Context, statement, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	grants := make([]Grant, 0, max)
	for rows.Next() {
		var (
			r Rollout
			n int
		)
		if err := rows.Scan(&r.ID, &r.Owner, &r.Status, &r.TurnInput, &r.TaskID, &r.Metadata, &r.DeadlineAt,
			&r.MaxAttempts, &r.LeaseEpoch, &r.LeaseSeconds, &r.LeaseExpiresAt, &r.LeaseGrantedAt,
			&r.LeaseGrantedExpiry, &r.CreatedAt, &n); err != nil {
			return nil, err
		}
		if n < 1 || n > max {
			return nil, fmt.Errorf("flywheel: claim read back secret rank %d of %d", n, max)
		}
		g := secrets[n-1]
		r.DeadlineAt, r.CreatedAt = r.DeadlineAt.UTC(), r.CreatedAt.UTC()
		r.LeaseExpiresAt, r.LeaseGrantedAt, r.LeaseGrantedExpiry = utcOrNil(r.LeaseExpiresAt), utcOrNil(r.LeaseGrantedAt), utcOrNil(r.LeaseGrantedExpiry)
		if r.LeaseExpiresAt != nil {
			g.ExpiresAt = *r.LeaseExpiresAt
		}
		g.Rollout = r
		grants = append(grants, g)
	}
	return grants, rows.Err()
}

// claimStatement draws max fresh sets of secrets and binds claimPostgres
// for who: the statement with its pick, and its arguments.
func claimStatement(who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, string, []any) {
	secrets := make([]Grant, max)
	tokens, keys, llms := make([]string, max), make([]string, max), make([]string, max)
	for i := range secrets {
		secrets[i] = Grant{LeaseToken: newSecret(LeaseTokenPrefix), APIKey: newSecret(APIKeyPrefix), LLMToken: newSecret(LLMTokenPrefix)}
		tokens[i], keys[i], llms[i] = Hash(secrets[i].LeaseToken), Hash(secrets[i].APIKey), Hash(secrets[i].LLMToken)
	}
	statement, pick := claimPick(who)
	args := append([]any{StatusQueued, now, max,
		strings.Join(tokens, ","), strings.Join(keys, ","), strings.Join(llms, ","),
		StatusLeased, lease.Seconds(), who.CredentialID, NoticeGrant, now.Add(NoticeGrace),
		grantNoticeLead(lease).Seconds()}, // the last: GrantNoticeDue in SQL
		pick...)
	return secrets, statement, args
}

// utcOrNil is t in UTC, or nil for nil.
func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	utc := t.UTC()
	return &utc
}
