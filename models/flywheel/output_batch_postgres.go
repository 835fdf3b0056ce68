package flywheel

import (
	"strconv"
	"time"

	"gorm.io/gorm"
)

// acceptOutputsPostgres is acceptOutputPostgres for a batch of outputs of
// distinct rollouts, given as parallel arrays (outputsArgs): each row's
// compare-and-swap, output row, output notice and superseded grant notice,
// all in one autocommit statement. It returns the id and epoch of each
// output it accepted; the others were refused by the WHERE, each for its
// own reason. Rewards travel as text so numeric keeps every digit of the
// float, as when bound alone.
const acceptOutputsPostgres = `WITH input AS (
		SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::bigint[], $9::bigint[], $10::text[], $11::text[], $12::boolean[], $13::text[], $14::text[], $15::text[],
			$16::text[], $17::text[], $18::text[], $19::timestamptz[])
		AS i(id, now, key, token, body_sha256, final_text, tool_calls, omitted, llm_call_count, artifacts, reward, success,
			exclusion_reason, exclusion_detail, events, timing, agent_fingerprint, tool_call_landed, due)
	), accepted AS (
		UPDATE flywheel_rollouts r SET output_at = i.now, updated_at = i.now
		FROM input i
		WHERE r.id = i.id AND r.api_key_hash = i.key AND r.lease_token_hash = i.token AND ` + rowStatusIs + `$20
			AND r.output_at IS NULL AND r.deadline_at > i.now AND r.lease_expires_at > i.now
		RETURNING r.id, r.lease_epoch
	), stored AS (
		INSERT INTO flywheel_outputs (rollout_id, epoch, body_sha256, final_text, tool_calls, tool_calls_omitted_count,
			llm_call_count, artifacts, reward, success, exclusion_reason, exclusion_detail, events, timing,
			agent_fingerprint, tool_call_landed, received_at)
		SELECT a.id, a.lease_epoch, i.body_sha256, i.final_text, i.tool_calls, i.omitted, i.llm_call_count, i.artifacts,
			CAST(i.reward AS numeric), i.success, i.exclusion_reason, i.exclusion_detail, i.events, i.timing, i.agent_fingerprint,
			i.tool_call_landed, i.now
		FROM accepted a JOIN input i ON i.id = a.id
	), notice AS (
		INSERT INTO flywheel_notices (rollout_id, epoch, kind, due_at, created_at)
		SELECT a.id, a.lease_epoch, $21, i.due, i.now FROM accepted a JOIN input i ON i.id = a.id
	), superseded AS (
		DELETE FROM flywheel_notices WHERE kind = $22 AND rollout_id IN (SELECT id FROM accepted)
	)
	SELECT id, lease_epoch FROM accepted`

// outputsArgs are acceptOutputsPostgres's parameters, $1 to $22, for a
// batch of outputs of distinct rollouts, in lock order (inLockOrder).
func outputsArgs(batch []*batchedOutput) []any {
	n := len(batch)
	var (
		ids, keys, tokens, sums, texts                  = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		nows, dues                                      = make([]time.Time, n), make([]time.Time, n)
		toolCalls, artifacts, rewards, reasons, details = make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
		events, timings, fingerprints, landed           = make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
		omitted                                         = make([]int64, n)
		llmCalls                                        = make([]*int64, n)
		success                                         = make([]*bool, n)
	)
	for i, x := range inLockOrder(batch) {
		o := x.o
		ids[i], keys[i], tokens[i], sums[i], texts[i] = x.h.RolloutID, Hash(x.h.APIKey), Hash(x.h.LeaseToken), o.BodySHA256, o.FinalText
		nows[i], dues[i] = x.now, x.now.Add(OutputNoticeGrace)
		toolCalls[i], artifacts[i], reasons[i], details[i] = o.ToolCalls, o.Artifacts, o.ExclusionReason, o.ExclusionDetail
		events[i], timings[i], fingerprints[i], landed[i] = o.Events, o.Timing, o.AgentFingerprint, o.ToolCallLanded
		omitted[i], llmCalls[i], success[i] = o.ToolCallsOmittedCount, o.LLMCallCount, o.Success
		if o.Reward != nil {
			r := strconv.FormatFloat(*o.Reward, 'g', -1, 64)
			rewards[i] = &r
		}
	}
	return []any{ids, nows, keys, tokens, sums, texts, toolCalls, omitted, llmCalls, artifacts, rewards, success,
		reasons, details, events, timings, fingerprints, landed, dues, StatusLeased, NoticeOutput, NoticeGrant}
}

// acceptOutputsStatement runs acceptOutputsPostgres on GORM's connection
// pool and returns the epoch of each output it accepted, by rollout id.
func acceptOutputsStatement(db *gorm.DB, batch []*batchedOutput) (map[string]int64, error) {
	rows, err := db.Statement.ConnPool.QueryContext(db.Statement.Context, acceptOutputsPostgres, outputsArgs(batch)...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	epochs := make(map[string]int64, len(batch))
	for rows.Next() {
		var id string
		var epoch int64
		if err := rows.Scan(&id, &epoch); err != nil {
			return nil, err
		}
		epochs[id] = epoch
	}
	return epochs, rows.Err()
}
