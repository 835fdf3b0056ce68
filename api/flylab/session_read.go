package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/temporalerr"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// StateQuerier is the part of the Temporal client a session read needs.
type StateQuerier = temporalerr.Querier

// Retry budget of a session query that fails transiently (a worker just
// died, the frontend is briefly unavailable): a lost worker costs the
// caller a delay, not an error. The budget is the attempts' deadline, and
// the SDK gives each call half of what is left: the first call outlasts
// the sticky queue's schedule-to-start timeout (5 s), after which the
// server stops waiting for a dead worker that held the workflow, resets
// the stickiness and asks a live worker, so a later attempt, if needed,
// reaches a live worker at once.
const (
	queryRetryBudget  = 15 * time.Second
	queryBackoffFirst = 200 * time.Millisecond
	queryBackoffMax   = 2 * time.Second
)

// ErrSessionGone says a session's workflow no longer exists in Temporal
// (closed and purged after the namespace's retention, terminated, or never
// started); the session's stored snapshot is then its state.
var ErrSessionGone = errors.New("flylab: the session workflow does not exist")

// ReadSession returns a session's state. The workflow is the authority
// and stores its state as the session's snapshot at every commit, before
// the commit answers; so the snapshot, with an operator decision recorded
// after it, is the state, and a read answers from it in one round trip.
// The workflow itself answers while the session row routes reads to it
// (a long call in progress, a commit not stored: read_route.go), while
// no snapshot exists (a session that never committed, or one whose
// workflow predates snapshots) and while a recorded decision is newer
// than the snapshot (the workflow may not have mirrored it yet); once the
// workflow is gone the database answers. A nil querier reads the database only. It fails with
// models.ErrNotFound for an unknown session.
func ReadSession(ctx context.Context, db *gorm.DB, q StateQuerier, sessionID string) (wf.SessionState, error) {
	read, err := models.ReadStored(ctx, db, sessionID, time.Now())
	if err != nil {
		return wf.SessionState{}, err
	}
	return readSession(ctx, db, q, read)
}

// readSession is ReadSession of a session already read from the database.
func readSession(ctx context.Context, db *gorm.DB, q StateQuerier, read models.StoredRead) (wf.SessionState, error) {
	sessionID := read.Session.ID
	st, pending, err := storedState(ctx, db, read)
	askWorkflow := read.AskWorkflow || read.Snapshot == nil || pending
	if err != nil || q == nil || !askWorkflow {
		return st, err
	}
	live, err := querySession(ctx, q, sessionID)
	if errors.Is(err, ErrSessionGone) {
		return st, nil
	}
	return live, err
}

// StoredSession is a session's state as the database holds it: the last
// snapshot, with an operator decision recorded after it (session_reconcile.go).
func StoredSession(ctx context.Context, db *gorm.DB, sessionID string) (wf.SessionState, error) {
	read, err := models.ReadStored(ctx, db, sessionID, time.Now())
	if err != nil {
		return wf.SessionState{}, err
	}
	st, _, err := storedState(ctx, db, read)
	return st, err
}

// storedState decodes a stored read: the snapshot with a later decision
// applied (pending says one was), or a session's first, empty state when
// it never committed.
func storedState(ctx context.Context, db *gorm.DB, read models.StoredRead) (st wf.SessionState, pending bool, err error) {
	if read.Snapshot == nil {
		return wf.SessionState{SessionID: read.Session.ID, Owner: read.Session.OwnerCredentialID, Revision: 1}, false, nil
	}
	if err := json.Unmarshal([]byte(read.Snapshot.State), &st); err != nil {
		return st, false, fmt.Errorf("flylab: stored state of %s: %w", read.Session.ID, err)
	}
	pending, err = reconcileDecision(ctx, db, &st)
	return st, pending, err
}

// querySession asks the session workflow for its state, retrying
// transient failures within ctx and the retry budget. It returns
// ErrSessionGone when the workflow does not exist.
func querySession(ctx context.Context, q StateQuerier, sessionID string) (wf.SessionState, error) {
	var st wf.SessionState
	err := temporalerr.Query(ctx, q, wf.SessionWorkflowID(sessionID), wf.StateQuery, &st,
		temporalerr.Backoff{Budget: queryRetryBudget, First: queryBackoffFirst, Max: queryBackoffMax})
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		return st, fmt.Errorf("%w: %v", ErrSessionGone, err)
	}
	return st, err
}
