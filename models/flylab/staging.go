package flylab

import (
	"context"

	"gorm.io/gorm"
)

// A batch or an evidence bundle is written staged by its tool's activity
// and published by the session's commit, once no cancellation can abort
// the call any more: a call cancelled before its commit leaves only
// staged rows, which no read serves (BundleByID, CountBatches, the
// console's ledger) and which a retry of the same operation publishes.

// PublishStaged publishes the batch and the bundle an operation staged, in
// one transaction. Publishing twice, or an operation that staged nothing,
// changes nothing.
func PublishStaged(ctx context.Context, db *gorm.DB, sessionID, operationKey string) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, model := range []any{&Batch{}, &EvidenceBundle{}} {
			if err := tx.Model(model).Where("session_id = ? AND operation_key = ? AND staged = ?", sessionID, operationKey, true).
				Update("staged", false).Error; err != nil {
				return err
			}
		}
		return nil
	})
}

// addStagedColumnsV1 adds the staged flag to batches and bundles; rows
// written before it were published when written.
func addStagedColumnsV1(tx *gorm.DB) error {
	type batch struct {
		Staged bool `gorm:"not null;default:false"`
	}
	type bundle struct {
		Staged bool `gorm:"not null;default:false"`
	}
	if err := tx.Table("flylab_batches").Migrator().AddColumn(&batch{}, "Staged"); err != nil {
		return err
	}
	return tx.Table("flylab_evidence_bundles").Migrator().AddColumn(&bundle{}, "Staged")
}
