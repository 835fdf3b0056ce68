package flylab

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// A session's reads answer from its stored snapshot, which the session
// workflow writes at every commit before the commit's Update answers, so
// a read on any api replica sees every revision a caller was told of. The
// workflow stays the authority; the snapshot is its mirror. Two things
// the mirror cannot show send reads to the workflow instead, for a
// bounded time recorded on the session row:
//   - a long call in flight (its "running" state lives only in the
//     workflow), marked by the api replica that sent it and cleared when it
//     answers, or when the mark lapses if that replica died;
//   - a commit whose snapshot the workflow could not store (the Update said
//     so), marked stale until a later commit stores the whole state.

// StaleSnapshotToken marks a session whose last commit was not stored.
const StaleSnapshotToken = "stale-snapshot"

// addWorkflowReadColumnsV1 adds the columns that route a session's reads
// to its workflow while they are in the future.
func addWorkflowReadColumnsV1(tx *gorm.DB) error {
	type session struct {
		WorkflowReadsUntil *time.Time
		WorkflowReadsToken string `gorm:"size:200;not null;default:''"`
	}
	m := tx.Table("flylab_sessions").Migrator()
	if err := m.AddColumn(&session{}, "WorkflowReadsUntil"); err != nil {
		return err
	}
	return m.AddColumn(&session{}, "WorkflowReadsToken")
}

// MarkLongCall routes a session's reads to its workflow until until, for
// the call named token, unless another mark is still in force (the
// workflow refuses a second concurrent mutation anyway).
func MarkLongCall(ctx context.Context, db *gorm.DB, sessionID, token string, now, until time.Time) error {
	return db.WithContext(ctx).Model(&Session{}).
		Where("id = ? AND (workflow_reads_until IS NULL OR workflow_reads_until < ?)", sessionID, now.UTC()).
		Updates(map[string]any{"workflow_reads_until": until.UTC(), "workflow_reads_token": token}).Error
}

// MarkSnapshotStale routes a session's reads to its workflow until until
// (or until a stored commit clears it), whatever mark is in force.
func MarkSnapshotStale(ctx context.Context, db *gorm.DB, sessionID string, until time.Time) error {
	return db.WithContext(ctx).Model(&Session{}).Where("id = ?", sessionID).
		Updates(map[string]any{"workflow_reads_until": until.UTC(), "workflow_reads_token": StaleSnapshotToken}).Error
}

// ClearReadMark lifts the mark of the call named token; with stored (the
// call's commit was stored whole) it also lifts a stale-snapshot mark.
func ClearReadMark(ctx context.Context, db *gorm.DB, sessionID, token string, stored bool) error {
	tokens := []string{token}
	if stored {
		tokens = append(tokens, StaleSnapshotToken)
	}
	return db.WithContext(ctx).Model(&Session{}).Where("id = ? AND workflow_reads_token IN ?", sessionID, tokens).
		Updates(map[string]any{"workflow_reads_until": nil, "workflow_reads_token": ""}).Error
}

// ShortenReadMark moves the lapse of the call named token's mark to until;
// another call's mark is left alone.
func ShortenReadMark(ctx context.Context, db *gorm.DB, sessionID, token string, until time.Time) error {
	return db.WithContext(ctx).Model(&Session{}).Where("id = ? AND workflow_reads_token = ?", sessionID, token).
		Update("workflow_reads_until", until.UTC()).Error
}

// StoredRead is what one query returns for a session read: the session,
// its snapshot when it committed one, and whether reads must ask its
// workflow now.
type StoredRead struct {
	Session     Session
	Snapshot    *SessionSnapshot
	AskWorkflow bool
}

// ReadStored loads a session and its snapshot in one round trip; it fails
// with ErrNotFound for an unknown session.
func ReadStored(ctx context.Context, db *gorm.DB, sessionID string, now time.Time) (StoredRead, error) {
	return readStored(db.WithContext(ctx).Where("s.id = ?", sessionID), now)
}

// ReadCurrent is ReadStored of a credential's current page session (the
// one it opened or resumed last, as SessionOf picks it), in one round
// trip; it fails with ErrNotFound when the credential has none.
func ReadCurrent(ctx context.Context, db *gorm.DB, credentialID string, now time.Time) (StoredRead, error) {
	return readStored(db.WithContext(ctx).Where("s.owner_credential_id = ?", credentialID).
		Order("COALESCE(s.selected_at, s.created_at) DESC").Order("s.id DESC"), now)
}

func readStored(q *gorm.DB, now time.Time) (StoredRead, error) {
	var row struct {
		Session
		SnapRevision *int
		SnapState    *string
		SnapUpdated  *time.Time
	}
	err := q.Table("flylab_sessions AS s").
		Select("s.*, snap.revision AS snap_revision, snap.state AS snap_state, snap.updated_at AS snap_updated").
		Joins("LEFT JOIN flylab_session_snapshots AS snap ON snap.session_id = s.id").
		Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return StoredRead{}, ErrNotFound
	}
	if err != nil {
		return StoredRead{}, err
	}
	out := StoredRead{Session: row.Session,
		AskWorkflow: row.WorkflowReadsUntil != nil && row.WorkflowReadsUntil.After(now)}
	if row.SnapRevision != nil && row.SnapState != nil {
		out.Snapshot = &SessionSnapshot{SessionID: row.ID, Revision: *row.SnapRevision, State: *row.SnapState}
		if row.SnapUpdated != nil {
			out.Snapshot.UpdatedAt = *row.SnapUpdated
		}
	}
	return out, nil
}
