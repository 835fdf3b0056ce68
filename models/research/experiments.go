package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// CreateExperiment stores e once per (project, name); a second call with
// the same name returns the stored row (created false).
func CreateExperiment(ctx context.Context, db *gorm.DB, e Experiment) (Experiment, bool, error) {
	var existing Experiment
	err := db.WithContext(ctx).Where("project_id = ? AND name = ?", e.ProjectID, e.Name).Take(&existing).Error
	if err == nil {
		return existing, false, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return Experiment{}, false, err
	}
	if err := db.WithContext(ctx).Create(&e).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return CreateExperiment(ctx, db, e)
		}
		return Experiment{}, false, err
	}
	return e, true, nil
}

// MirrorExperiment writes the workflow's status into the row when rev is
// newer than what the row has, so a retried or late write changes nothing.
func MirrorExperiment(ctx context.Context, db *gorm.DB, id, status, gate, next string, attempt, rev int, conclusion string, terminal bool) error {
	up := map[string]any{"status": status, "gate": gate, "next_action": next, "attempt": attempt,
		"revision": rev, "conclusion": conclusion, "updated_at": time.Now().UTC()}
	if terminal {
		up["finished_at"] = time.Now().UTC()
	}
	return db.WithContext(ctx).Model(&Experiment{}).Where("id = ? AND revision < ?", id, rev).Updates(up).Error
}

// OpenStatuses are the statuses of experiments that have not finished.
var OpenStatuses = []string{"planned", "design_review", "ready_to_run", "running", "experiment_review"}
