package flywheel

import (
	"database/sql"
	"errors"
	"time"

	"gorm.io/gorm"
)

// acceptOutputPostgres accepts an output in one autocommit statement, one
// round trip: the compare-and-swap of AcceptOutput's transaction (its WHERE
// is authorize's success case, as in heartbeatPostgres), the output row,
// the output notice, and the end of any grant notice still waiting (the
// output notice tells the workflow all it needs). The row is found by its
// primary key alone (rowStatusIs). Should the output row be refused (a
// value the store cannot hold), the whole statement fails and nothing is
// accepted. Its parameters are positional, in the order of outputArgs.
const acceptOutputPostgres = `WITH accepted AS (
		UPDATE flywheel_rollouts SET output_at = $1, updated_at = $1
		WHERE id = $2 AND api_key_hash = $3 AND lease_token_hash = $4 AND ` + rowStatusIs + `$5
			AND output_at IS NULL AND deadline_at > $1 AND lease_expires_at > $1
		RETURNING id, lease_epoch
	), stored AS (
		INSERT INTO flywheel_outputs (rollout_id, epoch, body_sha256, final_text, tool_calls, tool_calls_omitted_count,
			llm_call_count, artifacts, reward, success, exclusion_reason, exclusion_detail, events, timing,
			agent_fingerprint, tool_call_landed, received_at)
		SELECT id, lease_epoch, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $1
		FROM accepted
	), notice AS (
		INSERT INTO flywheel_notices (rollout_id, epoch, kind, due_at, created_at)
		SELECT id, lease_epoch, $20, $22, $1 FROM accepted
	), superseded AS (
		DELETE FROM flywheel_notices WHERE kind = $21 AND rollout_id IN (SELECT id FROM accepted)
	)
	SELECT lease_epoch FROM accepted`

// outputArgs are acceptOutputPostgres's parameters, $1 to $22.
func outputArgs(h Holder, o Output, now time.Time) []any {
	return []any{
		now, h.RolloutID, Hash(h.APIKey), Hash(h.LeaseToken), StatusLeased,
		o.BodySHA256, o.FinalText, o.ToolCalls, o.ToolCallsOmittedCount, o.LLMCallCount, o.Artifacts, o.Reward,
		o.Success, o.ExclusionReason, o.ExclusionDetail, o.Events, o.Timing, o.AgentFingerprint, o.ToolCallLanded,
		NoticeOutput, NoticeGrant, now.Add(OutputNoticeGrace),
	}
}

// acceptOutputOneStatement runs acceptOutputPostgres; when it accepts
// nothing, outputRefusal names the refusal.
func acceptOutputOneStatement(db *gorm.DB, h Holder, o Output, now time.Time) (int64, bool, error) {
	epoch, accepted, err := acceptOutputStatement(db, h, o, now)
	if err != nil || accepted {
		return epoch, false, err
	}
	return outputRefusal(db, h, o, now)
}

// acceptOutputStatement runs acceptOutputPostgres on GORM's connection
// pool directly, as heartbeatOneStatement does (GORM's named-parameter
// rewriting and reflective scan cost more CPU than the statement), and
// reports whether it accepted the output.
func acceptOutputStatement(db *gorm.DB, h Holder, o Output, now time.Time) (int64, bool, error) {
	var epoch int64
	err := db.Statement.ConnPool.QueryRowContext(db.Statement.Context, acceptOutputPostgres, outputArgs(h, o, now)...).
		Scan(&epoch)
	switch {
	case err == nil:
		return epoch, true, nil
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	}
	return 0, false, err
}

// outputRefusal names why the holder's output was not accepted: the
// output already accepted (with whether o repeats it), or authorize's
// refusal.
func outputRefusal(db *gorm.DB, h Holder, o Output, now time.Time) (int64, bool, error) {
	r, err := authorize(db, h, now, false)
	if err == ErrOutputAccepted {
		return 0, sameOutputBody(db, r.ID, o), err
	}
	if err != nil {
		return 0, false, err
	}
	return 0, false, ErrStaleLease // the row changed between the two statements
}
