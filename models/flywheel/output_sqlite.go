package flywheel

import (
	"errors"
	"time"

	"gorm.io/gorm"
)

// An output on SQLite in positional statements on database/sql, as a
// heartbeat is there (heartbeat_sqlite.go): the fence's columns read, the
// compare-and-swap, the output row, and the output notice replacing a
// grant's. Outputs share the dev database's one connection with every
// heartbeat, so each microsecond an output holds it is one every heartbeat
// queued behind it waits too; GORM's statement building and reflective
// scan of the whole row (turn input and metadata included) cost more
// than SQLite's work (BenchmarkOutputBatch_SQLite).
const (
	outputSQLiteUpdate = `UPDATE flywheel_rollouts SET output_at = ?, updated_at = ?
		WHERE id = ? AND status = ? AND lease_epoch = ? AND lease_token_hash = ? AND output_at IS NULL AND lease_expires_at > ? AND deadline_at > ?`
	outputSQLiteInsert = `INSERT INTO flywheel_outputs (rollout_id, epoch, body_sha256, final_text, tool_calls, tool_calls_omitted_count,
		llm_call_count, artifacts, reward, success, exclusion_reason, exclusion_detail, events, timing, agent_fingerprint,
		tool_call_landed, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	outputSQLiteDropNotice = `DELETE FROM flywheel_notices WHERE rollout_id = ? AND kind = ?`
	outputSQLiteNotice     = `INSERT INTO flywheel_notices (rollout_id, epoch, kind, due_at, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`
)

// outputSQLiteStatements are the statements acceptOutputTx sends on
// every output, which an OutputBatcher keeps prepared (preparedSQLite).
var outputSQLiteStatements = []string{heartbeatSQLiteRead, outputSQLiteUpdate, outputSQLiteInsert, outputSQLiteDropNotice, outputSQLiteNotice}

// acceptOutputTx is AcceptOutput's work inside transaction tx (SQLite),
// its statements sent on conn (tx's connection, or the same answering
// prepared statements). A refusal (leaseRefused) is decided before
// anything is written (heldRowSQLite).
func acceptOutputTx(tx *gorm.DB, conn gorm.ConnPool, h Holder, o Output, now time.Time) (epoch int64, sameBody bool, err error) {
	ctx := tx.Statement.Context
	r, err := heldRowSQLite(tx, conn, h, now)
	if err == ErrOutputAccepted {
		return 0, sameOutputBody(tx, r.ID, o), err
	}
	if err != nil {
		return 0, false, err
	}
	res, err := conn.ExecContext(ctx, outputSQLiteUpdate, now, now, r.ID, StatusLeased, r.LeaseEpoch, r.LeaseTokenHash, now, now)
	if err != nil {
		return 0, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return 0, false, errors.Join(ErrStaleLease, err)
	}
	if _, err := conn.ExecContext(ctx, outputSQLiteInsert, r.ID, r.LeaseEpoch, o.BodySHA256, o.FinalText, o.ToolCalls,
		o.ToolCallsOmittedCount, o.LLMCallCount, o.Artifacts, o.Reward, o.Success, o.ExclusionReason, o.ExclusionDetail,
		o.Events, o.Timing, o.AgentFingerprint, o.ToolCallLanded, now); err != nil {
		return 0, false, err
	}
	// A grant still waiting: the output notice says all.
	if _, err := conn.ExecContext(ctx, outputSQLiteDropNotice, r.ID, NoticeGrant); err != nil {
		return 0, false, err
	}
	_, err = conn.ExecContext(ctx, outputSQLiteNotice, r.ID, r.LeaseEpoch, NoticeOutput, now.Add(OutputNoticeGrace), now)
	return r.LeaseEpoch, false, err
}
