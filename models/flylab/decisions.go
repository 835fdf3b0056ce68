package flylab

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// OperatorDecision is an operator's approve or reject, written by the API
// after it authenticated the operator and before it signals the experiment
// workflow. The workflow opens or closes its gate only on a signal whose
// decision_id names a row here for the same experiment, decision and
// protocol hash: a signal sent straight to Temporal, however correct its
// values, names no such row and decides nothing. Rows are inserted once
// and never updated.
type OperatorDecision struct {
	ID           string `gorm:"primaryKey;size:60"`
	ExperimentID string `gorm:"size:100;not null;index"`
	Status       string `gorm:"size:32;not null"`
	ProtocolHash string `gorm:"size:71;not null"`
	Operator     string `gorm:"size:200;not null"`
	Reason       string `gorm:"size:1000"`
	CreatedAt    time.Time
}

// TableName names the table.
func (OperatorDecision) TableName() string { return "flylab_operator_decisions" }

// GateRefusal records a gate signal the experiment workflow refused
// because no authenticated decision backs it (a forged or replayed
// signal). Key is the workflow's attempt key, so a retried activity
// records one row.
type GateRefusal struct {
	Key             string `gorm:"primaryKey;size:200"`
	ExperimentID    string `gorm:"size:100;not null;index"`
	Signal          string `gorm:"size:32;not null"`
	DecisionID      string `gorm:"size:60"`
	ClaimedOperator string `gorm:"size:200"`
	Why             string `gorm:"size:300;not null"`
	CreatedAt       time.Time
}

// TableName names the table.
func (GateRefusal) TableName() string { return "flylab_gate_refusals" }

// CreateDecision stores an operator decision once.
func CreateDecision(ctx context.Context, db *gorm.DB, d OperatorDecision) error {
	if d.CreatedAt.IsZero() {
		d.CreatedAt = time.Now().UTC()
	}
	return db.WithContext(ctx).Create(&d).Error
}

// DecisionByID returns an operator decision, or ErrNotFound.
func DecisionByID(ctx context.Context, db *gorm.DB, id string) (OperatorDecision, error) {
	var d OperatorDecision
	err := first(ctx, db, &d, "id = ?", id)
	return d, err
}

// RecordRefusal stores a refused gate signal once per attempt key.
func RecordRefusal(ctx context.Context, db *gorm.DB, r GateRefusal) error {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now().UTC()
	}
	return CreateOnce(ctx, db, &r)
}

// RefusalsOf lists the refused gate signals of an experiment, oldest first.
func RefusalsOf(ctx context.Context, db *gorm.DB, experimentID string) ([]GateRefusal, error) {
	var out []GateRefusal
	err := db.WithContext(ctx).Where("experiment_id = ?", experimentID).Order("created_at").Find(&out).Error
	return out, err
}
