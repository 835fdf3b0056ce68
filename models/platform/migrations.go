package platform

import (
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// Migrations returns the platform tables' migrations. Each Up works on a
// snapshot struct of the table as it was at that version.
func Migrations() []migrate.Migration {
	return []migrate.Migration{
		{ID: "2026112901_platform_credentials", Up: func(tx *gorm.DB) error {
			type credential struct {
				ID          string `gorm:"primaryKey;size:32"`
				Role        string `gorm:"size:16;not null;index"`
				Name        string `gorm:"size:200;not null"`
				Hash        string `gorm:"size:64;not null;uniqueIndex:idx_credentials_hash"`
				Hint        string `gorm:"size:32;not null"`
				AllProjects bool   `gorm:"not null;default:false"`
				CreatedAt   time.Time
				RevokedAt   *time.Time
			}
			type credentialProject struct {
				CredentialID string `gorm:"primaryKey;size:32"`
				ProjectID    string `gorm:"primaryKey;size:64"`
			}
			if err := tx.Table("credentials").Migrator().CreateTable(&credential{}); err != nil {
				return err
			}
			return tx.Table("credential_projects").Migrator().CreateTable(&credentialProject{})
		}},
	}
}
