package flylab

import (
	"time"

	"gorm.io/gorm"
)

// createAuthenticatedGatesV1 adds the operator decisions the API writes
// before it signals a gate, and the refused gate signals.
func createAuthenticatedGatesV1(tx *gorm.DB) error {
	type operatorDecision struct {
		ID           string `gorm:"primaryKey;size:60"`
		ExperimentID string `gorm:"size:100;not null;index:idx_flylab_operator_decisions_experiment"`
		Status       string `gorm:"size:32;not null"`
		ProtocolHash string `gorm:"size:71;not null"`
		Operator     string `gorm:"size:200;not null"`
		Reason       string `gorm:"size:1000"`
		CreatedAt    time.Time
	}
	type gateRefusal struct {
		Key             string `gorm:"primaryKey;size:200"`
		ExperimentID    string `gorm:"size:100;not null;index:idx_flylab_gate_refusals_experiment"`
		Signal          string `gorm:"size:32;not null"`
		DecisionID      string `gorm:"size:60"`
		ClaimedOperator string `gorm:"size:200"`
		Why             string `gorm:"size:300;not null"`
		CreatedAt       time.Time
	}
	if err := tx.Table("flylab_operator_decisions").Migrator().CreateTable(&operatorDecision{}); err != nil {
		return err
	}
	return tx.Table("flylab_gate_refusals").Migrator().CreateTable(&gateRefusal{})
}

// pageSessionsPerKeyV1 lets one API key own many page sessions: the
// unique owner index becomes a plain one, and selected_at marks the
// session an inspect without arguments answers for (the latest opened or
// resumed).
func pageSessionsPerKeyV1(tx *gorm.DB) error {
	type session struct {
		ID                string `gorm:"primaryKey;size:40"`
		OwnerCredentialID string `gorm:"size:32;not null;index:idx_flylab_sessions_owner_key"`
		OwnerName         string `gorm:"size:200;not null"`
		SelectedAt        *time.Time
		CreatedAt         time.Time
	}
	m := tx.Table("flylab_sessions").Migrator()
	if err := m.DropIndex(&session{}, "idx_flylab_sessions_owner"); err != nil {
		return err
	}
	if err := m.AddColumn(&session{}, "SelectedAt"); err != nil {
		return err
	}
	return m.CreateIndex(&session{}, "idx_flylab_sessions_owner_key")
}
