package flywheel

import (
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// Migrations returns the flywheel tables' migrations. Each Up works on a
// snapshot of the tables as they were at that version, never on the live
// structs, so later field changes need a new migration.
func Migrations() []migrate.Migration {
	return []migrate.Migration{
		{ID: "2026112920_flywheel_tables", Up: func(tx *gorm.DB) error {
			type turn struct {
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
				ReceivedAt            time.Time
			}
			type rollout struct {
				ID               string  `gorm:"primaryKey;size:40"`
				EnqueueKey       *string `gorm:"size:300;uniqueIndex:idx_flywheel_rollouts_enqueue_key"`
				Status           string  `gorm:"size:16;not null;index:idx_flywheel_rollouts_queue,priority:1"`
				TurnInput        string  `gorm:"not null"`
				TaskID           *string `gorm:"size:255"`
				Metadata         *string
				SourceAgent      *string   `gorm:"size:255"`
				SourceTurn       *string   `gorm:"size:255"`
				DeadlineAt       time.Time `gorm:"not null"`
				MaxAttempts      int       `gorm:"not null"`
				LeaseEpoch       int64     `gorm:"not null;default:0"`
				LeaseTokenHash   string    `gorm:"size:64;not null;default:''"`
				APIKeyHash       string    `gorm:"size:64;not null;default:'';index:idx_flywheel_rollouts_api_key"`
				LLMTokenHash     string    `gorm:"size:64;not null;default:'';index:idx_flywheel_rollouts_llm_token"`
				LeaseSeconds     float64   `gorm:"not null;default:0"`
				LeaseExpiresAt   *time.Time
				OutputAt         *time.Time
				ExclusionReason  *string `gorm:"size:40"`
				ExclusionDetail  *string
				LLMCallsObserved int64     `gorm:"not null;default:0"`
				CreatedAt        time.Time `gorm:"index:idx_flywheel_rollouts_queue,priority:2"`
				UpdatedAt        time.Time
				FinishedAt       *time.Time
			}
			type lease struct {
				RolloutID  string `gorm:"primaryKey;size:40"`
				Epoch      int64  `gorm:"primaryKey"`
				APIKeyHash string `gorm:"size:64;not null;index:idx_flywheel_leases_api_key"`
				ClaimedBy  string `gorm:"size:32;not null"`
				GrantedAt  time.Time
				ExpiresAt  time.Time
				Heartbeats int64 `gorm:"not null;default:0"`
				EndedAt    *time.Time
				EndReason  *string `gorm:"size:40"`
			}
			type output struct {
				RolloutID             string `gorm:"primaryKey;size:40"`
				Epoch                 int64  `gorm:"not null"`
				BodySHA256            string `gorm:"size:64;not null"`
				FinalText             string `gorm:"not null"`
				ToolCalls             *string
				ToolCallsOmittedCount int64 `gorm:"not null"`
				LLMCallCount          *int64
				Artifacts             *string
				Reward                *float64
				Success               *bool
				ExclusionReason       *string `gorm:"size:40"`
				ExclusionDetail       *string
				Events                *string
				Timing                *string
				AgentFingerprint      *string
				ReceivedAt            time.Time
			}
			type gatewayCall struct {
				ID            string `gorm:"primaryKey;size:40"`
				RolloutID     string `gorm:"size:40;not null;index:idx_flywheel_gateway_calls_rollout"`
				Epoch         int64  `gorm:"not null"`
				Endpoint      string `gorm:"size:40;not null"`
				Completion    bool   `gorm:"not null"`
				Model         string `gorm:"size:200;not null;default:''"`
				RequestSHA256 string `gorm:"size:64;not null"`
				Stream        bool   `gorm:"not null"`
				Status        int    `gorm:"not null"`
				StartedAt     time.Time
				DurationMS    float64
			}
			for name, model := range map[string]any{
				"flywheel_turns": &turn{}, "flywheel_rollouts": &rollout{}, "flywheel_leases": &lease{},
				"flywheel_outputs": &output{}, "flywheel_gateway_calls": &gatewayCall{},
			} {
				if err := tx.Table(name).Migrator().CreateTable(model); err != nil {
					return err
				}
			}
			return nil
		}},
		{ID: "2026113010_flywheel_lease_heartbeats", Up: func(tx *gorm.DB) error {
			// Heartbeats are counted where they are decided, so the lease
			// history's count does not depend on how many heartbeat signals
			// the workflow received (they coalesce).
			return tx.Exec("ALTER TABLE flywheel_rollouts ADD COLUMN lease_heartbeats bigint NOT NULL DEFAULT 0").Error
		}},
		{ID: "2026120108_flywheel_owners", Up: migrateOwners},
		{ID: "2026120109_flywheel_lease_llm_calls", Up: func(tx *gorm.DB) error {
			// The gateway counts per lease epoch and tells an ended
			// lease's llm_url (410) from an unknown one (404).
			for _, stmt := range []string{
				"ALTER TABLE flywheel_leases ADD COLUMN llm_token_hash varchar(64) NOT NULL DEFAULT ''",
				"ALTER TABLE flywheel_leases ADD COLUMN llm_calls bigint NOT NULL DEFAULT 0",
				"CREATE INDEX idx_flywheel_leases_llm_token_hash ON flywheel_leases (llm_token_hash)",
			} {
				if err := tx.Exec(stmt).Error; err != nil {
					return err
				}
			}
			return nil
		}},
		{ID: "2026120110_flywheel_leases_undelivered", Up: func(tx *gorm.DB) error {
			// Attempts count leases that reached an agent, not epochs.
			if err := tx.Exec("ALTER TABLE flywheel_rollouts ADD COLUMN leases_undelivered bigint NOT NULL DEFAULT 0").Error; err != nil {
				return err
			}
			return tx.Exec("UPDATE flywheel_rollouts SET leases_undelivered = (SELECT count(*) FROM flywheel_leases l " +
				"WHERE l.rollout_id = flywheel_rollouts.id AND l.end_reason = 'not_delivered')").Error
		}},
		{ID: "2026120111_flywheel_gateway_identity", Up: func(tx *gorm.DB) error {
			// The server-derived scaffold identity, the tool_call_id join
			// and the outcome tri-state, recorded as the contract describes.
			for _, stmt := range []string{
				"ALTER TABLE flywheel_gateway_calls ADD COLUMN prompt_sha256 varchar(64) NOT NULL DEFAULT ''",
				"ALTER TABLE flywheel_gateway_calls ADD COLUMN tools_sha256 varchar(64) NOT NULL DEFAULT ''",
				"ALTER TABLE flywheel_gateway_calls ADD COLUMN sampling text",
				"ALTER TABLE flywheel_gateway_calls ADD COLUMN tool_result_ids text",
				"ALTER TABLE flywheel_gateway_calls ADD COLUMN emitted_tool_call_ids text",
				"ALTER TABLE flywheel_turns ADD COLUMN tool_call_landed text",
				"ALTER TABLE flywheel_outputs ADD COLUMN tool_call_landed text",
			} {
				if err := tx.Exec(stmt).Error; err != nil {
					return err
				}
			}
			return nil
		}},
		{ID: "2026120112_flywheel_notices", Up: migrateNotices},
		{ID: "2026120113_flywheel_claim_index", Up: migrateClaimIndex},
		{ID: "2026120411_flywheel_lease_grant_columns", Up: migrateGrantColumns},
		{ID: "2026120512_flywheel_drop_rollout_secret_indexes", Up: migrateDropRolloutSecretIndexes},
		{ID: "2026120513_flywheel_claimable_function", Up: migrateClaimableFunction},
		{ID: "2026120514_flywheel_claim_functions", Up: migrateClaimFunctions},
		{ID: "2026120523_flywheel_located_secrets", Up: migrateLocatedSecrets},
		{ID: "2026120606_flywheel_queue_indexes", Up: migrateQueueIndexes},
	}
}
