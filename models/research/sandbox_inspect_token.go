package research

import (
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// SandboxInspectTokenMigration adds research_sandboxes.inspect_token: the
// bearer token of a sandbox Pod's agent lives in this row, which only the
// api and the worker can read, and nowhere else (not in workflow history
// or queries, and the Pod spec carries only its SHA-256).
func SandboxInspectTokenMigration() migrate.Migration {
	return migrate.Migration{ID: "2026120110_research_sandbox_inspect_token", Up: func(tx *gorm.DB) error {
		return tx.Migrator().AddColumn(&sandboxInspectTokenV1{}, "InspectToken")
	}}
}

type sandboxInspectTokenV1 struct {
	InspectToken string `gorm:"size:128;not null;default:''"`
}

func (sandboxInspectTokenV1) TableName() string { return "research_sandboxes" }
