package flywheel

import (
	"time"

	"gorm.io/gorm"
)

// migrateOwners gives rollouts an owner (existing ones stay unrestricted:
// all-projects keys only) and re-keys turns by (owner, agent_id, turn_id)
// with a body digest. Existing turns are owned by the key that posted
// them; their digest is unknown (empty), so a replay of one counts as a
// duplicate as before.
func migrateOwners(tx *gorm.DB) error {
	if err := tx.Exec("ALTER TABLE flywheel_rollouts ADD COLUMN owner varchar(300) NOT NULL DEFAULT ''").Error; err != nil {
		return err
	}
	if err := tx.Exec("CREATE INDEX idx_flywheel_rollouts_owner_queue ON flywheel_rollouts (owner, status, created_at)").Error; err != nil {
		return err
	}
	type turn struct {
		Owner                 string  `gorm:"primaryKey;size:300"`
		AgentID               string  `gorm:"primaryKey;size:255"`
		TurnID                string  `gorm:"primaryKey;size:255"`
		TaskID                *string `gorm:"size:255"`
		ConversationID        *string `gorm:"size:255"`
		TurnIndex             *int64
		InputText             *string
		FinalText             *string
		ToolCalls             *string
		ToolCallsOmittedCount int64 `gorm:"not null"`
		AgentFingerprint      *string
		OccurredAt            *string `gorm:"size:64"`
		CredentialID          string  `gorm:"size:32;not null"`
		BodySHA256            string  `gorm:"size:64;not null;default:''"`
		ReceivedAt            time.Time
	}
	if err := tx.Table("flywheel_turns_owned").Migrator().CreateTable(&turn{}); err != nil {
		return err
	}
	const cols = "agent_id, turn_id, task_id, conversation_id, turn_index, input_text, final_text, tool_calls, " +
		"tool_calls_omitted_count, agent_fingerprint, occurred_at, credential_id, received_at"
	for _, stmt := range []string{
		"INSERT INTO flywheel_turns_owned (owner, body_sha256, " + cols + ") SELECT '" + OwnerKeyPrefix + "' || credential_id, '', " + cols + " FROM flywheel_turns",
		"DROP TABLE flywheel_turns",
		"ALTER TABLE flywheel_turns_owned RENAME TO flywheel_turns",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return err
		}
	}
	return nil
}
