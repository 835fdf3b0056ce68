package flywheel

import (
	"time"

	"gorm.io/gorm"
)

// acceptOutputPostgres accepts an output in one autocommit statement, one
// round trip: the compare-and-swap of AcceptOutput's transaction (its WHERE
// is authorize's success case, as in heartbeatPostgres), the output row,
// the output notice, and the end of any grant notice still waiting (the
// output notice tells the workflow all it needs). The row is found by its
// primary key alone (rowStatusIs). Should the output row be refused (a value the
// store cannot hold), the whole statement fails and nothing is accepted.
const acceptOutputPostgres = `WITH accepted AS (
		UPDATE flywheel_rollouts SET output_at = @now, updated_at = @now
		WHERE id = @id AND api_key_hash = @key AND lease_token_hash = @token AND ` + rowStatusIs + `@leased
			AND output_at IS NULL AND deadline_at > @now AND lease_expires_at > @now
		RETURNING id, lease_epoch
	), stored AS (
		INSERT INTO flywheel_outputs (rollout_id, epoch, body_sha256, final_text, tool_calls, tool_calls_omitted_count,
			llm_call_count, artifacts, reward, success, exclusion_reason, exclusion_detail, events, timing,
			agent_fingerprint, tool_call_landed, received_at)
		SELECT id, lease_epoch, @body_sha256, @final_text, @tool_calls, @omitted, @llm_call_count, @artifacts, @reward,
			@success, @exclusion_reason, @exclusion_detail, @events, @timing, @agent_fingerprint, @tool_call_landed, @now
		FROM accepted
	), notice AS (
		INSERT INTO flywheel_notices (rollout_id, epoch, kind, due_at, created_at)
		SELECT id, lease_epoch, @output, @due, @now FROM accepted
	), superseded AS (
		DELETE FROM flywheel_notices WHERE kind = @grant AND rollout_id IN (SELECT id FROM accepted)
	)
	SELECT lease_epoch FROM accepted`

// acceptOutputOneStatement runs acceptOutputPostgres; when it accepts
// nothing, authorize names the refusal.
func acceptOutputOneStatement(db *gorm.DB, h Holder, o Output, now time.Time) (int64, bool, error) {
	var epochs []int64
	err := db.Raw(acceptOutputPostgres, map[string]any{
		"now": now, "id": h.RolloutID, "key": Hash(h.APIKey), "token": Hash(h.LeaseToken), "leased": StatusLeased,
		"body_sha256": o.BodySHA256, "final_text": o.FinalText, "tool_calls": o.ToolCalls, "omitted": o.ToolCallsOmittedCount,
		"llm_call_count": o.LLMCallCount, "artifacts": o.Artifacts, "reward": o.Reward, "success": o.Success,
		"exclusion_reason": o.ExclusionReason, "exclusion_detail": o.ExclusionDetail, "events": o.Events, "timing": o.Timing,
		"agent_fingerprint": o.AgentFingerprint, "tool_call_landed": o.ToolCallLanded,
		"output": NoticeOutput, "grant": NoticeGrant, "due": now.Add(NoticeGrace),
	}).Find(&epochs).Error
	if err != nil {
		return 0, false, err
	}
	if len(epochs) == 1 {
		return epochs[0], false, nil
	}
	r, err := authorize(db, h, now, false)
	if err == ErrOutputAccepted {
		return 0, sameOutputBody(db, r.ID, o), err
	}
	if err != nil {
		return 0, false, err
	}
	return 0, false, ErrStaleLease // the row changed between the two statements
}
