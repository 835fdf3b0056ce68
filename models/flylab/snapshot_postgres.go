package flylab

import (
	"gorm.io/gorm"
)

// saveSnapshotWithResultPostgres is SaveSnapshotWithResult in one
// autocommit statement, one round trip where the transaction costs four
// (BEGIN, the two inserts, COMMIT): the result inserted once by key (a
// retry stores nothing new), and the snapshot upserted on the condition
// upsertSnapshot writes with. One statement is one transaction, so the
// two are still never stored one without the other.
const saveSnapshotWithResultPostgres = `WITH result AS (
		INSERT INTO flylab_tool_results (key, session_id, tool, data, created_at)
		VALUES (@key, @session, @tool, @data, @now)
		ON CONFLICT DO NOTHING
	)
	INSERT INTO flylab_session_snapshots (session_id, revision, state, updated_at)
	VALUES (@session, @revision, @state, @now)
	ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, state = excluded.state, updated_at = excluded.updated_at
	WHERE ` + replacesStoredSnapshot

// saveSnapshotWithResultOneStatement runs saveSnapshotWithResultPostgres.
func saveSnapshotWithResultOneStatement(db *gorm.DB, row SessionSnapshot, result ToolResult) error {
	return db.Exec(saveSnapshotWithResultPostgres, map[string]any{
		"key": result.Key, "session": row.SessionID, "tool": result.Tool, "data": result.Data,
		"revision": row.Revision, "state": row.State, "now": row.UpdatedAt,
	}).Error
}
