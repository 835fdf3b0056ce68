package research

import (
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// SandboxMigration creates the sandbox tables from frozen copies of their
// models as of this version.
func SandboxMigration() migrate.Migration {
	return migrate.Migration{ID: "2026112960_research_sandboxes", Up: func(tx *gorm.DB) error {
		for _, m := range []any{&sandboxV1{}, &sandboxPullV1{}} {
			if err := tx.Migrator().CreateTable(m); err != nil {
				return err
			}
		}
		return nil
	}}
}

type sandboxV1 struct {
	UID          string `gorm:"primaryKey;size:64"`
	ProjectID    string `gorm:"size:64;not null;index"`
	ExperimentID string `gorm:"size:64;not null;default:'';index"`
	Provider     string `gorm:"size:32;not null"`
	InstanceType string `gorm:"size:64;not null"`
	Region       string `gorm:"size:64;not null;default:''"`
	CPU          float64
	MemoryMB     int
	GPU          int
	PublicKey    string `gorm:"size:8000;not null"`
	KeyFP        string `gorm:"size:128;not null;default:''"`
	Status       string `gorm:"size:24;not null;index"`
	SSHHost      string `gorm:"size:255;not null;default:''"`
	SSHPort      int
	SSHUser      string `gorm:"size:64;not null;default:''"`
	Workdir      string `gorm:"size:1024;not null;default:''"`
	ExpiresAt    time.Time
	LastError    string `gorm:"size:2000;not null;default:''"`
	CreatedBy    string `gorm:"size:64;not null;default:''"`
	CreatedAt    time.Time
	UpdatedAt    time.Time
	EndedAt      *time.Time
}

func (sandboxV1) TableName() string { return "research_sandboxes" }

type sandboxPullV1 struct {
	ID         uint   `gorm:"primaryKey"`
	SandboxUID string `gorm:"size:64;not null;uniqueIndex:idx_research_sandbox_pull,priority:1"`
	Path       string `gorm:"size:1024;not null;uniqueIndex:idx_research_sandbox_pull,priority:2"`
	SHA256     string `gorm:"size:64;not null;uniqueIndex:idx_research_sandbox_pull,priority:3"`
	ObjectID   string `gorm:"size:64;not null"`
	CreatedAt  time.Time
}

func (sandboxPullV1) TableName() string { return "research_sandbox_pulls" }
