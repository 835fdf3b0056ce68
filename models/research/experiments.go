package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// CreateExperiment stores e once per (project, name); a second call with
// the same name returns the stored row (created false). A new row is
// stored only if limits (the project's limits, counted inside the same
// transaction, which holds the project row locked on PostgreSQL) allow it,
// so concurrent creates cannot together exceed them.
func CreateExperiment(ctx context.Context, db *gorm.DB, e Experiment, limits func(tx *gorm.DB) error) (Experiment, bool, error) {
	var out Experiment
	created := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		lock := tx.Where("id = ?", e.ProjectID)
		if tx.Name() == "postgres" {
			lock = lock.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		if err := lock.Take(&Project{}).Error; err != nil {
			return err
		}
		err := tx.Where("project_id = ? AND name = ?", e.ProjectID, e.Name).Take(&out).Error
		if err == nil || !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		if limits != nil {
			if err := limits(tx); err != nil {
				return err
			}
		}
		if err := tx.Create(&e).Error; err != nil {
			return err
		}
		out, created = e, true
		return nil
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) { // a concurrent create of the same name won
		return CreateExperiment(ctx, db, e, nil)
	}
	return out, created, err
}

// CountOpenExperiments counts the project's experiments not yet finished.
func CountOpenExperiments(ctx context.Context, db *gorm.DB, projectID string) (int64, error) {
	var n int64
	return n, db.WithContext(ctx).Model(&Experiment{}).Where("project_id = ? AND status IN ?", projectID, OpenStatuses).Count(&n).Error
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
