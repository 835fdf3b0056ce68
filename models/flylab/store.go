package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ErrNotFound is returned when a record does not exist (or belongs to
// another session).
var ErrNotFound = errors.New("flylab: record not found")

// CreateOnce inserts record unless a row with the same primary or unique
// key exists: a retried activity writes nothing the second time.
func CreateOnce(ctx context.Context, db *gorm.DB, record any) error {
	return db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(record).Error
}

// PutToolResult stores the data of a committed tool call once, by key.
func PutToolResult(ctx context.Context, db *gorm.DB, key, sessionID, tool string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return CreateOnce(ctx, db, &ToolResult{Key: key, SessionID: sessionID, Tool: tool, Data: string(raw), CreatedAt: time.Now().UTC()})
}

// LoadToolResult returns the stored data of a tool call.
func LoadToolResult(ctx context.Context, db *gorm.DB, key string) (json.RawMessage, error) {
	var r ToolResult
	if err := first(ctx, db, &r, "key = ?", key); err != nil {
		return nil, err
	}
	return json.RawMessage(r.Data), nil
}

// Find loads one record of a session by id.
func Find[T any](ctx context.Context, db *gorm.DB, sessionID, id string) (T, error) {
	var r T
	err := first(ctx, db, &r, "id = ? AND session_id = ?", id, sessionID)
	return r, err
}

func first(ctx context.Context, db *gorm.DB, dest any, query string, args ...any) error {
	err := db.WithContext(ctx).Where(query, args...).Take(dest).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	return err
}

// SessionOf returns the current page session of a credential: the one it
// opened or resumed last (sessions from before page sessions existed have
// no selection time and count as opened when they were created).
func SessionOf(ctx context.Context, db *gorm.DB, credentialID string) (Session, error) {
	var s Session
	err := db.WithContext(ctx).Where("owner_credential_id = ?", credentialID).
		Order("COALESCE(selected_at, created_at) DESC").Order("id DESC").Take(&s).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return s, ErrNotFound
	}
	return s, err
}

// SelectSession makes a session its owner's current one.
func SelectSession(ctx context.Context, db *gorm.DB, id string, at time.Time) error {
	return db.WithContext(ctx).Model(&Session{}).Where("id = ?", id).Update("selected_at", at.UTC()).Error
}

// SessionsOf lists a credential's page sessions, newest first.
func SessionsOf(ctx context.Context, db *gorm.DB, credentialID string, limit int) ([]Session, error) {
	var out []Session
	err := db.WithContext(ctx).Where("owner_credential_id = ?", credentialID).Order("created_at DESC").Limit(limit).Find(&out).Error
	return out, err
}

// SessionByID returns a session by id.
func SessionByID(ctx context.Context, db *gorm.DB, id string) (Session, error) {
	var s Session
	err := first(ctx, db, &s, "id = ?", id)
	return s, err
}

// ListSessions lists sessions, newest first.
func ListSessions(ctx context.Context, db *gorm.DB, limit int) ([]Session, error) {
	var out []Session
	err := db.WithContext(ctx).Order("created_at DESC").Limit(limit).Find(&out).Error
	return out, err
}

// ExperimentByID returns an experiment by id, in any session.
func ExperimentByID(ctx context.Context, db *gorm.DB, id string) (Experiment, error) {
	var e Experiment
	err := first(ctx, db, &e, "id = ?", id)
	return e, err
}

// ListExperiments lists experiments, optionally of one status, newest first.
func ListExperiments(ctx context.Context, db *gorm.DB, status string, limit int) ([]Experiment, error) {
	q := db.WithContext(ctx).Order("created_at DESC").Limit(limit)
	if status != "" {
		q = q.Where("status = ?", status)
	}
	var out []Experiment
	return out, q.Find(&out).Error
}

// RecordDecision moves an experiment to status, storing the approval
// record for an approval. Applying the same decision twice is a no-op; a
// decided experiment is never reopened.
func RecordDecision(ctx context.Context, db *gorm.DB, id, status, approval, by, reason string) error {
	from := map[string][]string{
		StatusApproved: {StatusAwaitingApproval},
		StatusRejected: {StatusAwaitingApproval},
		StatusRevoked:  {StatusAwaitingApproval, StatusApproved},
		StatusRan:      {StatusApproved},
	}[status]
	if from == nil {
		return errors.New("flylab: unknown decision " + status)
	}
	updates := map[string]any{"status": status, "decided_by": by, "reason": reason, "updated_at": time.Now().UTC()}
	if approval != "" {
		updates["approval"] = approval
	}
	return db.WithContext(ctx).Model(&Experiment{}).Where("id = ? AND status IN ?", id, from).Updates(updates).Error
}

// BatchByOperation returns the batch a run operation committed.
func BatchByOperation(ctx context.Context, db *gorm.DB, key string) (Batch, error) {
	var b Batch
	err := first(ctx, db, &b, "operation_key = ?", key)
	return b, err
}

// CountBatches counts the batches of an experiment.
func CountBatches(ctx context.Context, db *gorm.DB, experimentID string) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Batch{}).Where("experiment_id = ? AND staged = ?", experimentID, false).Count(&n).Error
	return n, err
}

// BundleByOperation returns the ledger entry a save operation wrote.
func BundleByOperation(ctx context.Context, db *gorm.DB, key string) (EvidenceBundle, error) {
	var b EvidenceBundle
	err := first(ctx, db, &b, "operation_key = ?", key)
	return b, err
}

// BundleByID returns a published ledger entry by id.
func BundleByID(ctx context.Context, db *gorm.DB, id string) (EvidenceBundle, error) {
	var b EvidenceBundle
	err := first(ctx, db, &b, "id = ? AND staged = ?", id, false)
	return b, err
}
