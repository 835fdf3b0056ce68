package research

import (
	"context"

	"gorm.io/gorm"
)

// Status reads the api makes to answer a call its target's workflow no
// longer takes: whether the target finished, and how. Each reads the
// status column alone, by id, and answers ErrNoRecord when no row has it.

// ExperimentStatus reads the status the database mirror holds for
// experiment id.
func ExperimentStatus(ctx context.Context, db *gorm.DB, id string) (string, error) {
	var e Experiment
	err := take(db.WithContext(ctx).Select("status").Where("id = ?", id), &e)
	return e.Status, err
}

// ReflectionStatus reads the status the database mirror holds for
// reflection wave id.
func ReflectionStatus(ctx context.Context, db *gorm.DB, id string) (string, error) {
	var r Reflection
	err := take(db.WithContext(ctx).Select("status").Where("id = ?", id), &r)
	return r.Status, err
}
