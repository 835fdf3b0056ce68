package flywheel

import (
	"slices"
	"strings"

	"gorm.io/gorm"
)

// claimFunctionTemplate is a whole claim on PostgreSQL as one function:
// pick up to p_max claimable rows ({{where}} says whose), locked FOR
// UPDATE SKIP LOCKED (the lock re-checks status on the row's latest
// version and holds it to commit, so the update joins by primary key
// alone), pair each with a set of fresh secret hashes by rank, lease them,
// and write each lease's history row and grant notice (due as
// GrantNoticeDue says). The plaintext secrets never reach the database;
// only their hashes do. It answers grantColumns; the statement that
// calls it orders them (claimAllProjects, claimListed). It names the
// queued status literally, so its plan may use the indexes that hold
// queued rollouts alone (migrateQueueIndexes); p_status stays in its
// signature for the callers of the releases before, which pass 'queued'.
//
// It is a function for its SET clauses ({{settings}}), which hold its
// plan to the indexes whatever the statistics say. Sent as a statement,
// the claim was planned from the statistics of the moment its session
// first prepared it, and kept that plan: a session that prepared it while
// the table held a few dozen rows joined the update through a sequential
// scan of flywheel_rollouts on every later claim, reading every rollout
// ever enqueued (TestClaim_OnPostgresNeverScansTheRolloutsWhateverPlanTheSessionCached).
// With sequential scans, hash joins and merge joins off, the update can
// only reach each picked row by its primary key. Being one statement, the
// pick and the writes share one snapshot. Its parameters are those of
// claimStatement, in order.
const claimFunctionTemplate = `CREATE OR REPLACE FUNCTION {{name}}(
		p_status text, p_now timestamptz, p_max bigint, p_tokens text, p_keys text, p_llms text,
		p_leased text, p_lease double precision, p_by text, p_kind text, p_grace timestamptz,
		p_lead double precision, p_owners text[]{{params}}{{located_param}})
	RETURNS TABLE (id text, owner text, status text, turn_input text, task_id text, metadata text,
		deadline_at timestamptz, max_attempts bigint, lease_epoch bigint, lease_seconds numeric,
		lease_expires_at timestamptz, lease_granted_at timestamptz, lease_granted_expiry timestamptz,
		created_at timestamptz, secret_n bigint)
	LANGUAGE plpgsql VOLATILE
	SET enable_seqscan = off
	SET enable_hashjoin = off
	SET enable_mergejoin = off{{settings}}
	AS $$
	#variable_conflict use_column
	BEGIN{{commit}}
		RETURN QUERY WITH picked AS (
			SELECT locked.id, row_number() OVER (ORDER BY locked.created_at, locked.id) AS n FROM (
				SELECT r.id, r.created_at FROM flywheel_rollouts r
				WHERE r.status = {{queued}} AND r.deadline_at > p_now AND {{where}}
				ORDER BY r.created_at, r.id LIMIT p_max FOR UPDATE SKIP LOCKED) locked
		), secrets AS (
			SELECT * FROM unnest(string_to_array(p_tokens, ','), string_to_array(p_keys, ','), string_to_array(p_llms, ','){{located_unnest}})
				WITH ORDINALITY AS s(token_hash, key_hash, llm_hash{{located_alias}}, n)
		), granted AS (
			UPDATE flywheel_rollouts r SET status = p_leased, lease_epoch = r.lease_epoch + 1,
				lease_token_hash = s.token_hash, api_key_hash = s.key_hash, llm_token_hash = s.llm_hash,
				lease_seconds = p_lease, lease_expires_at = LEAST(p_now + make_interval(secs => p_lease), r.deadline_at),
				lease_granted_at = p_now, lease_granted_expiry = LEAST(p_now + make_interval(secs => p_lease), r.deadline_at),
				lease_heartbeats = 0, llm_calls_observed = 0, updated_at = p_now
			FROM picked p JOIN secrets s ON s.n = p.n
			WHERE r.id = p.id
			RETURNING r.id, r.owner, r.status, r.turn_input, r.task_id, r.metadata, r.deadline_at,
				r.max_attempts, r.lease_epoch, r.lease_seconds, r.lease_expires_at, r.lease_granted_at,
				r.lease_granted_expiry, r.created_at, r.api_key_hash, r.llm_token_hash, p.n AS secret_n{{located_returning}}
		), history AS (
			INSERT INTO flywheel_leases (rollout_id, epoch, api_key_hash, llm_token_hash, claimed_by, granted_at, expires_at, heartbeats, llm_calls{{located_column}})
			SELECT g.id, g.lease_epoch, g.api_key_hash, g.llm_token_hash, p_by, p_now, g.lease_expires_at, 0, 0{{located_value}} FROM granted g
		), notices AS (
			INSERT INTO flywheel_notices (rollout_id, epoch, kind, expires_at, due_at, created_at)
			SELECT g.id, g.lease_epoch, p_kind, g.lease_expires_at,
				GREATEST(p_grace, g.lease_expires_at - make_interval(secs => p_lead)), p_now FROM granted g
		)
		SELECT g.id::text, g.owner::text, g.status::text, g.turn_input, g.task_id::text, g.metadata, g.deadline_at,
			g.max_attempts, g.lease_epoch, g.lease_seconds, g.lease_expires_at, g.lease_granted_at,
			g.lease_granted_expiry, g.created_at, g.secret_n FROM granted g;
	END
	$$`

// locatedParts are the template's placeholders and what a located claim
// function puts there: the locators parameter (one per rank, as the
// secret hashes), its column of the secrets, the locator written to each
// lease row, and the asynchronous commit. A claim function from before
// locators leaves each empty.
var locatedParts = []string{
	"{{located_param}}", ", p_locators text", "{{located_unnest}}", ", string_to_array(p_locators, ',')",
	"{{located_alias}}", ", locator", "{{located_returning}}", ", s.locator AS locator",
	"{{located_column}}", ", locator", "{{located_value}}", ", g.locator",
	"{{commit}}", "\n\t\tPERFORM set_config('synchronous_commit', 'off', true);",
}

// claimFunctions are the two claims (claimAllProjects, claimListed),
// named with suffix. located says they take one more parameter, the
// locator of each rank's secrets (locator.go), and store it on the lease
// they grant, and that the claim's own transaction commits
// asynchronously (why that is safe: claim_postgres.go):
//
//   - flywheel_claim, for an all-projects key: the unrestricted rollouts,
//     its own ($13) and every project's (p_prefix). Bitmap scans are off
//     too, so the pick walks the claim index (created_at, id of the
//     queued rollouts) in order and stops after p_max rows: with
//     statistics taken before a burst of enqueues the planner would read
//     every queued row through a bitmap scan and sort them all to keep 16
//     (TestClaim_OnPostgresReadsAFewPagesWhateverTheStatisticsSay). Its
//     plan is generic, made once per session: the settings leave no choice
//     a parameter could sway, and under pgbench (prepared, with
//     parameters, 2,000 queued) a claim of 16 took 0.85 ms against 0.96
//     ms for the statement planned at each call.
//   - flywheel_claim_listed, for a key with listed owners ($13): the
//     planner chooses between the claim index and the owner index by how
//     much of the queue those owners hold, so it plans each claim with
//     its owners.
func claimFunctions(suffix string, located bool) []string {
	loc := slices.Clone(locatedParts)
	for i := 1; i < len(loc) && !located; i += 2 {
		loc[i] = "" // the claim as it was before locators
	}
	render := func(name, params, settings, where string) string {
		return strings.NewReplacer(append([]string{"{{name}}", name + suffix, "{{params}}", params,
			"{{settings}}", settings, "{{where}}", where, "{{queued}}", "'" + StatusQueued + "'"}, loc...)...).Replace(claimFunctionTemplate)
	}
	return []string{
		render("flywheel_claim", ", p_prefix text", "\n\tSET enable_bitmapscan = off\n\tSET plan_cache_mode = force_generic_plan",
			"(r.owner = ANY(p_owners) OR r.owner LIKE p_prefix)"),
		render("flywheel_claim_listed", "", "\n\tSET plan_cache_mode = force_custom_plan", "r.owner = ANY(p_owners)"),
	}
}

// migrateClaimFunctions creates flywheel_claim and flywheel_claim_listed on
// PostgreSQL; SQLite claims through claimSQLite and needs neither. The
// flywheel_claimable of the migration before stayed, for api replicas of
// the previous release still running during a rolling upgrade (until
// migrateQueueIndexes); so do these two once migrateLocatedSecrets adds
// their successors.
func migrateClaimFunctions(tx *gorm.DB) error {
	return createClaimFunctions(tx, claimFunctions("", false))
}

// createClaimFunctions runs each CREATE OR REPLACE FUNCTION of fs on
// PostgreSQL.
func createClaimFunctions(tx *gorm.DB, fs []string) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	for _, f := range fs {
		if err := tx.Exec(f).Error; err != nil {
			return err
		}
	}
	return nil
}
