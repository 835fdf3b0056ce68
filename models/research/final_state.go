package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// Kinds of workflow whose final state is stored.
const (
	FinalKindExperiment = "experiment"
	FinalKindReflection = "reflection"
)

// WorkflowFinalState is the state a research workflow (an experiment or a
// reflection wave) ended with, written by the workflow's last step. Temporal
// is the authority while the workflow runs; once it has closed, and above
// all once Temporal purged it after the namespace's retention, this row is
// the only authority a read needs.
type WorkflowFinalState struct {
	// WorkflowID is the workflow's readable ID (research-experiment/<id>).
	WorkflowID string `gorm:"primaryKey;size:200"`
	Kind       string `gorm:"size:32;not null"`
	// Revision is the workflow's state revision when it ended.
	Revision int `gorm:"not null"`
	// StateJSON is the workflow's final query answer, as JSON.
	StateJSON string `gorm:"type:text;not null"`
	CreatedAt time.Time
}

// TableName pins the table name.
func (WorkflowFinalState) TableName() string { return "research_workflow_final_states" }

// StoreFinalState records a workflow's final state once: a retried write
// (the activity ran twice) finds the row and changes nothing.
func StoreFinalState(ctx context.Context, db *gorm.DB, s WorkflowFinalState) error {
	return db.WithContext(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "workflow_id"}}, DoNothing: true}).Create(&s).Error
}

// FinalState loads a workflow's stored final state; ok is false while the
// workflow has not ended (or ended before final states were stored).
func FinalState(ctx context.Context, db *gorm.DB, workflowID string) (WorkflowFinalState, bool, error) {
	var s WorkflowFinalState
	err := db.WithContext(ctx).Where("workflow_id = ?", workflowID).Take(&s).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return s, false, nil
	}
	return s, err == nil, err
}

// FinalStateMigration creates research_workflow_final_states from a frozen
// copy of its model as of this version.
func FinalStateMigration() migrate.Migration {
	return migrate.Migration{ID: "2026112980_research_final_states", Up: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&workflowFinalStateV1{})
	}}
}

type workflowFinalStateV1 struct {
	WorkflowID string `gorm:"primaryKey;size:200"`
	Kind       string `gorm:"size:32;not null"`
	Revision   int    `gorm:"not null"`
	StateJSON  string `gorm:"type:text;not null"`
	CreatedAt  time.Time
}

func (workflowFinalStateV1) TableName() string { return "research_workflow_final_states" }
