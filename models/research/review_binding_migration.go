package research

import (
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// ReviewBindingMigration adds what binds a review to the credentials
// behind it: the credential that requested it, the credential (and its
// role) that opened its session, and the findings and evidence a verdict
// carries.
func ReviewBindingMigration() migrate.Migration {
	return migrate.Migration{ID: "2026120110_research_review_binding", Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&reviewRequestBindingV1{}, "ProducerCredential"); err != nil {
			return err
		}
		for _, col := range []string{"OpenedByCredential", "OpenedByRole", "FindingsJSON", "EvidenceJSON"} {
			if err := tx.Migrator().AddColumn(&reviewSessionBindingV1{}, col); err != nil {
				return err
			}
		}
		return nil
	}}
}

type reviewRequestBindingV1 struct {
	ProducerCredential string `gorm:"size:64;not null;default:''"`
}

func (reviewRequestBindingV1) TableName() string { return "research_review_requests" }

type reviewSessionBindingV1 struct {
	OpenedByCredential string `gorm:"size:64;not null;default:''"`
	OpenedByRole       string `gorm:"size:16;not null;default:''"`
	FindingsJSON       string `gorm:"type:text;not null;default:''"`
	EvidenceJSON       string `gorm:"type:text;not null;default:''"`
}

func (reviewSessionBindingV1) TableName() string { return "research_review_sessions" }
