package flylab

import (
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// Migrations returns the FlyLab tables' migrations. The Up works on
// snapshot structs of the tables as they were at that version.
func Migrations() []migrate.Migration {
	return []migrate.Migration{
		{ID: "2026112910_flylab_ledger", Up: createLedgerV1},
		{ID: "2026120110_flylab_session_snapshots", Up: createSessionSnapshotsV1},
		{ID: "2026120112_flylab_authenticated_gates", Up: createAuthenticatedGatesV1},
		{ID: "2026120113_flylab_page_sessions", Up: pageSessionsPerKeyV1},
		{ID: "2026120210_flylab_staged_writes", Up: addStagedColumnsV1},
		{ID: "2026120310_flylab_session_read_route", Up: addWorkflowReadColumnsV1},
	}
}

// createSessionSnapshotsV1 adds the table the session workflow stores its
// committed state in, so the session outlives its workflow.
func createSessionSnapshotsV1(tx *gorm.DB) error {
	type sessionSnapshot struct {
		SessionID string `gorm:"primaryKey;size:40"`
		Revision  int    `gorm:"not null"`
		State     string `gorm:"type:text;not null"`
		UpdatedAt time.Time
	}
	return tx.Table("flylab_session_snapshots").Migrator().CreateTable(&sessionSnapshot{})
}

func createLedgerV1(tx *gorm.DB) error {
	type session struct {
		ID                string `gorm:"primaryKey;size:40"`
		OwnerCredentialID string `gorm:"size:32;not null;uniqueIndex:idx_flylab_sessions_owner"`
		OwnerName         string `gorm:"size:200;not null"`
		CreatedAt         time.Time
	}
	type toolResult struct {
		Key       string `gorm:"primaryKey;size:300"`
		SessionID string `gorm:"size:40;not null;index:idx_flylab_tool_results_session"`
		Tool      string `gorm:"size:40;not null"`
		Data      string `gorm:"type:text;not null"`
		CreatedAt time.Time
	}
	type hypothesis struct {
		ID        string `gorm:"primaryKey;size:100"`
		SessionID string `gorm:"size:40;not null;index:idx_flylab_hypotheses_session"`
		CircuitID string `gorm:"size:100;not null"`
		Body      string `gorm:"type:text;not null"`
		CreatedAt time.Time
	}
	type experiment struct {
		ID               string `gorm:"primaryKey;size:100"`
		SessionID        string `gorm:"size:40;not null;index:idx_flylab_experiments_session"`
		HypothesisID     string `gorm:"size:100;not null"`
		Status           string `gorm:"size:32;not null;index:idx_flylab_experiments_status"`
		ProtocolHash     string `gorm:"size:71;not null"`
		SeedManifestHash string `gorm:"size:71;not null"`
		Design           string `gorm:"type:text;not null"`
		Approval         string `gorm:"type:text"`
		DecidedBy        string `gorm:"size:200"`
		Reason           string `gorm:"size:1000"`
		CreatedAt        time.Time
		UpdatedAt        time.Time
	}
	type batch struct {
		ID             string `gorm:"primaryKey;size:100"`
		SessionID      string `gorm:"size:40;not null;index:idx_flylab_batches_session"`
		ExperimentID   string `gorm:"size:100;not null;index:idx_flylab_batches_experiment"`
		OperationKey   string `gorm:"size:300;not null;uniqueIndex:idx_flylab_batches_op"`
		RunContentHash string `gorm:"size:71;not null"`
		Body           string `gorm:"type:text;not null"`
		CreatedAt      time.Time
	}
	type analysis struct {
		ID        string `gorm:"primaryKey;size:100"`
		SessionID string `gorm:"size:40;not null;index:idx_flylab_analyses_session"`
		BatchID   string `gorm:"size:100;not null;index:idx_flylab_analyses_batch"`
		Body      string `gorm:"type:text;not null"`
		CreatedAt time.Time
	}
	type comparison struct {
		ID        string `gorm:"primaryKey;size:100"`
		SessionID string `gorm:"size:40;not null;index:idx_flylab_comparisons_session"`
		Body      string `gorm:"type:text;not null"`
		CreatedAt time.Time
	}
	type evidenceBundle struct {
		ID           string `gorm:"primaryKey;size:100"`
		SessionID    string `gorm:"size:40;not null;index:idx_flylab_bundles_session"`
		OperationKey string `gorm:"size:300;not null;uniqueIndex:idx_flylab_bundles_op"`
		ManifestHash string `gorm:"size:71;not null"`
		Export       string `gorm:"type:text;not null"`
		CreatedAt    time.Time
	}
	tables := []struct {
		name  string
		model any
	}{
		{"flylab_sessions", &session{}}, {"flylab_tool_results", &toolResult{}},
		{"flylab_hypotheses", &hypothesis{}}, {"flylab_experiments", &experiment{}},
		{"flylab_batches", &batch{}}, {"flylab_analyses", &analysis{}},
		{"flylab_comparisons", &comparison{}}, {"flylab_evidence_bundles", &evidenceBundle{}},
	}
	for _, t := range tables {
		if err := tx.Table(t.name).Migrator().CreateTable(t.model); err != nil {
			return err
		}
	}
	return nil
}
