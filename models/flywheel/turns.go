package flywheel

import (
	"context"
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// InsertTurns stores a batch in one transaction. (agent_id, turn_id) is the
// idempotency key: a turn already stored (or repeated within the batch) is
// counted as a duplicate and never written twice, so a replayed batch
// stores nothing.
func InsertTurns(ctx context.Context, db *gorm.DB, turns []Turn) (accepted, duplicates int, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		accepted, duplicates = 0, 0
		for i := range turns {
			res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&turns[i])
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 1 {
				accepted++
			} else {
				duplicates++
			}
		}
		return nil
	})
	return accepted, duplicates, err
}

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// GetTurn reads one stored turn.
func GetTurn(ctx context.Context, db *gorm.DB, agentID, turnID string) (Turn, error) {
	var t Turn
	err := db.WithContext(ctx).Where("agent_id = ? AND turn_id = ?", agentID, turnID).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Turn{}, ErrNotFound
	}
	return t, err
}

// ListTurns reads an agent's turns in turn-id order, at most limit.
func ListTurns(ctx context.Context, db *gorm.DB, agentID string, limit int) ([]Turn, error) {
	var out []Turn
	err := db.WithContext(ctx).Where("agent_id = ?", agentID).Order("turn_id").Limit(limit).Find(&out).Error
	return out, err
}
