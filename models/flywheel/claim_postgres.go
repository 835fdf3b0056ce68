package flywheel

import (
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// The claim statements, one round trip each: an all-projects key's (the
// unrestricted rollouts, its own, and every project's: $13 the owners it
// takes whole, $14 the owner prefix it takes, $15 the leases' locators)
// and a listed-owner key's ($13 its owners, $14 the locators). Each calls
// the function that holds the whole claim (migrations_claim_function.go). Their parameters are positional and
// they run on database/sql directly, as the heartbeat does: GORM's
// named-parameter rewriting cost more of the api's CPU than anything
// else of a claim but the statement.
const (
	claimAllProjects = `SELECT ` + grantColumns + ` FROM flywheel_claim_located($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ORDER BY created_at, id`
	claimListed      = `SELECT ` + grantColumns + ` FROM flywheel_claim_listed_located($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ORDER BY created_at, id`
)

// A claim commits asynchronously (synchronous_commit off for its own
// transaction, set inside the claim function), as heartbeats do: it does
// not wait for its WAL to reach the disk, which cut a claim of 16 from
// 1.6-1.8 ms to 1.1-1.3 ms (BenchmarkClaim_Postgres). Only a crash of
// PostgreSQL itself within a fraction of a second can lose such a claim,
// and losing one is harmless: the rollout is queued again as it was, the
// secrets its claimer got match no row (its heartbeat answers 401, its
// llm_url nothing), and the next claim mints fresh ones. Any later
// synchronous commit (an output, a gateway call, a cancel) flushes the
// WAL before it, claims included, so nothing that depended on a lost
// claim can survive it. Outputs keep synchronous commit: an accepted
// output is never lost.

// claimPick is who's claim statement and its arguments from $13 on.
func claimPick(who Claimant) (string, []any) {
	if who.AllProjects {
		owners, prefix := who.allProjectsOwners()
		return claimAllProjects, []any{owners, prefix}
	}
	return claimListed, []any{who.listedOwners()}
}

// grantColumns are the columns a PostgreSQL claim reads back of each
// leased rollout, in the order runClaim scans them: the rollout
// as its claimer sees it, the lease just granted, and the rank of the
// secrets it took. The other columns (hashes just written, counters just
// reset, terminal fields still empty) are not read back, and the scan is
// by position, not by GORM's reflection (BenchmarkClaim_Postgres).
const grantColumns = `id, owner, status, turn_input, task_id, metadata, deadline_at,
	max_attempts, lease_epoch, lease_seconds, lease_expires_at, lease_granted_at,
	lease_granted_expiry, created_at, secret_n`

// claimOneStatement runs who's claim statement with max fresh sets of
// secrets.
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

// claimStatement draws max fresh sets of secrets and binds who's claim
// statement: the statement, and its arguments.
func claimStatement(who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, string, []any) {
	secrets := make([]Grant, max)
	tokens, keys, llms, locators := make([]string, max), make([]string, max), make([]string, max), make([]string, max)
	for i := range secrets {
		locators[i] = newLocator()
		secrets[i] = mintSecrets(locators[i])
		tokens[i], keys[i], llms[i] = Hash(secrets[i].LeaseToken), Hash(secrets[i].APIKey), Hash(secrets[i].LLMToken)
	}
	statement, pick := claimPick(who)
	args := append([]any{StatusQueued, now, max,
		strings.Join(tokens, ","), strings.Join(keys, ","), strings.Join(llms, ","),
		StatusLeased, lease.Seconds(), who.CredentialID, NoticeGrant, now.Add(NoticeGrace),
		grantNoticeLead(lease).Seconds()}, // the last: GrantNoticeDue in SQL
		append(pick, strings.Join(locators, ","))...)
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
