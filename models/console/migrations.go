package console

import (
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// Migrations returns the console tables' migrations. Each Up works on a
// snapshot struct of the table as it was at that version.
func Migrations() []migrate.Migration {
	return []migrate.Migration{
		{ID: "2026112950_console_sessions", Up: func(tx *gorm.DB) error {
			type session struct {
				IDHash       string `gorm:"primaryKey;size:64"`
				CredentialID string `gorm:"size:32;not null;index:idx_console_sessions_credential_id"`
				OperatorName string `gorm:"size:200;not null"`
				CSRFToken    string `gorm:"size:64;not null"`
				CreatedAt    time.Time
				ExpiresAt    time.Time `gorm:"not null;index:idx_console_sessions_expires_at"`
			}
			return tx.Table("console_sessions").Migrator().CreateTable(&session{})
		}},
	}
}
