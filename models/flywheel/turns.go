package flywheel

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TurnConflict is one turn whose (owner, agent_id, turn_id) is already
// stored with a different body.
type TurnConflict struct {
	Index          int    `json:"index"`
	TurnID         string `json:"turn_id"`
	StoredSHA256   string `json:"stored_sha256"`
	ReceivedSHA256 string `json:"received_sha256"`
}

// TurnConflictError is returned, with nothing stored, when a batch reuses
// a stored turn id for a different body.
type TurnConflictError struct {
	Conflicts []TurnConflict
}

func (e *TurnConflictError) Error() string {
	return fmt.Sprintf("%d turn id(s) already stored with a different body", len(e.Conflicts))
}

// InsertTurns stores a batch in one transaction. (owner, agent_id,
// turn_id) is the idempotency key: a turn already stored with the same
// body digest (or repeated within the batch) is counted as a duplicate and
// never written twice, so a replayed batch stores nothing. A stored turn
// whose digest differs fails the whole batch with *TurnConflictError. An
// empty digest (turns stored before digests were kept) compares equal to
// anything.
func InsertTurns(ctx context.Context, db *gorm.DB, turns []Turn) (accepted, duplicates int, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		accepted, duplicates = 0, 0
		var conflicts []TurnConflict
		for i := range turns {
			ok, stored, err := insertTurn(tx, &turns[i])
			switch {
			case err != nil:
				return err
			case ok:
				accepted++
			case stored != "" && turns[i].BodySHA256 != "" && stored != turns[i].BodySHA256:
				conflicts = append(conflicts, TurnConflict{Index: i, TurnID: turns[i].TurnID, StoredSHA256: stored, ReceivedSHA256: turns[i].BodySHA256})
			default:
				duplicates++
			}
		}
		if len(conflicts) > 0 {
			return &TurnConflictError{Conflicts: conflicts}
		}
		return nil
	})
	return accepted, duplicates, err
}

// insertTurn stores t unless its key is taken; then it returns the stored
// turn's digest.
func insertTurn(tx *gorm.DB, t *Turn) (bool, string, error) {
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(t)
	if res.Error != nil {
		return false, "", res.Error
	}
	if res.RowsAffected == 1 {
		return true, "", nil
	}
	var stored Turn
	err := tx.Select("body_sha256").Where("owner = ? AND agent_id = ? AND turn_id = ?", t.Owner, t.AgentID, t.TurnID).Take(&stored).Error
	return false, stored.BodySHA256, err
}

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// ErrAmbiguousTurn is returned when several owners stored the same
// (agent_id, turn_id) and the caller named none.
var ErrAmbiguousTurn = errors.New("several owners stored this agent_id and turn_id: name the owner")

// GetTurn reads one stored turn. An empty owner matches any owner, and
// answers ErrAmbiguousTurn when more than one stored the key.
func GetTurn(ctx context.Context, db *gorm.DB, owner, agentID, turnID string) (Turn, error) {
	q := db.WithContext(ctx).Where("agent_id = ? AND turn_id = ?", agentID, turnID)
	if owner != "" {
		q = q.Where("owner = ?", owner)
	}
	var ts []Turn
	if err := q.Order("owner").Limit(2).Find(&ts).Error; err != nil {
		return Turn{}, err
	}
	switch len(ts) {
	case 0:
		return Turn{}, ErrNotFound
	case 1:
		return ts[0], nil
	}
	return Turn{}, ErrAmbiguousTurn
}

// ListTurns reads an owner's turns of one agent in turn-id order, at most
// limit.
func ListTurns(ctx context.Context, db *gorm.DB, owner, agentID string, limit int) ([]Turn, error) {
	var out []Turn
	err := db.WithContext(ctx).Where("owner = ? AND agent_id = ?", owner, agentID).Order("turn_id").Limit(limit).Find(&out).Error
	return out, err
}
