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

// ReadSession returns a session's state. While its workflow exists the
// workflow answers (it is the authority); once it is gone the state is
// the snapshot the workflow stored at its last commit, or a session's
// first, empty state when it never committed. A nil querier reads the
// database only. It fails with models.ErrNotFound for an unknown session.
func ReadSession(ctx context.Context, db *gorm.DB, q StateQuerier, sessionID string) (wf.SessionState, error) {
	if q != nil {
		st, err := querySession(ctx, q, sessionID)
		if !errors.Is(err, ErrSessionGone) {
			return st, err
		}
	}
	return StoredSession(ctx, db, sessionID)
}

// StoredSession is a session's state as the database holds it: the last
// snapshot, with an operator decision recorded after it (session_reconcile.go).
func StoredSession(ctx context.Context, db *gorm.DB, sessionID string) (wf.SessionState, error) {
	var st wf.SessionState
	snap, err := models.LoadSnapshot(ctx, db, sessionID)
	if err == nil {
		if err := json.Unmarshal([]byte(snap.State), &st); err != nil {
			return st, fmt.Errorf("flylab: stored state of %s: %w", sessionID, err)
		}
		return st, reconcileDecision(ctx, db, &st)
	}
	if !errors.Is(err, models.ErrNotFound) {
		return st, err
	}
	row, err := models.SessionByID(ctx, db, sessionID)
	if err != nil {
		return st, err
	}
	return wf.SessionState{SessionID: row.ID, Owner: row.OwnerCredentialID, Revision: 1}, nil
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
