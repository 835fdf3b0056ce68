package research

import "time"

// MLflowRun links a Gatehouse experiment to its MLflow run, so
// mlflow.context and mlflow.finalize_run are idempotent: one run per
// experiment, finished once.
type MLflowRun struct {
	ExperimentID       string `gorm:"primaryKey;size:64"`
	ProjectID          string `gorm:"size:64;not null;index"`
	MLflowExperimentID string `gorm:"size:64;not null"`
	RunID              string `gorm:"size:64;not null"`
	FinishedAt         *time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// TableName pins the table name.
func (MLflowRun) TableName() string { return "research_mlflow_runs" }
