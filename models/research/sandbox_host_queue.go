package research

import (
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// SandboxHostQueueMigration adds research_sandboxes.host_queue, the
// mirror of the task queue of the worker host holding a local sandbox.
func SandboxHostQueueMigration() migrate.Migration {
	return migrate.Migration{ID: "2026112990_research_sandbox_host_queue", Up: func(tx *gorm.DB) error {
		return tx.Migrator().AddColumn(&sandboxHostQueueV1{}, "HostQueue")
	}}
}

type sandboxHostQueueV1 struct {
	HostQueue string `gorm:"size:255;not null;default:''"`
}

func (sandboxHostQueueV1) TableName() string { return "research_sandboxes" }
