package research

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// MLflowRunOf loads the MLflow run recorded for an experiment (ErrNoRecord
// if none was created yet).
func MLflowRunOf(ctx context.Context, db *gorm.DB, experimentID string) (MLflowRun, error) {
	var r MLflowRun
	err := take(db.WithContext(ctx).Where("experiment_id = ?", experimentID), &r)
	return r, err
}

// RecordMLflowRun stores run as its experiment's MLflow run; when a
// concurrent call recorded one first it answers that one instead.
func RecordMLflowRun(ctx context.Context, db *gorm.DB, run MLflowRun) (MLflowRun, error) {
	err := db.WithContext(ctx).Create(&run).Error
	if err == nil {
		return run, nil
	}
	if first, rerr := MLflowRunOf(ctx, db, run.ExperimentID); rerr == nil {
		return first, nil
	}
	return run, err
}

// FinishMLflowRun marks an experiment's MLflow run finished at now, once.
func FinishMLflowRun(ctx context.Context, db *gorm.DB, experimentID string, now time.Time) error {
	return db.WithContext(ctx).Model(&MLflowRun{}).Where("experiment_id = ? AND finished_at IS NULL", experimentID).
		Updates(map[string]any{"finished_at": now, "updated_at": time.Now().UTC()}).Error
}
