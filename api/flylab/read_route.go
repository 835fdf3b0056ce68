package flylab

import (
	"context"
	"log/slog"
	"time"

	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// Reads of a session answer from its stored snapshot unless the session
// row routes them to the workflow (models/flylab/read_route.go). A
// mutation keeps that route truthful: a long call marks the session while
// it runs, so a read on any replica sees it in progress; a commit the
// workflow could not store marks it stale, so no read answers an older
// revision than one a caller was told of.

// longCallReadMark bounds a long call's mark, should the replica that set
// it die before clearing it: longer than a simulation may run.
const longCallReadMark = 15 * time.Minute

// lostAnswerReadMark is how long a long call's mark stays once its answer
// was lost (the caller went away, Temporal did not answer): the call may
// still be running, or being aborted, in the workflow.
const lostAnswerReadMark = time.Minute

// staleSnapshotReadMark bounds a stale-snapshot mark; the next stored
// commit clears it sooner.
const staleSnapshotReadMark = 24 * time.Hour

// readRoute is one mutation's part in routing its session's reads.
type readRoute struct {
	s       *Service
	ctx     context.Context
	session models.Session
	token   string
	marked  bool
}

// routeReads marks the session for a long call and returns what settles
// the route once the call answered.
func (s *Service) routeReads(ctx context.Context, session models.Session, tool string) *readRoute {
	r := &readRoute{s: s, ctx: context.WithoutCancel(ctx), session: session, token: "call/" + randomHex(12)}
	if wf.LongTool(tool) {
		now := time.Now()
		if err := models.MarkLongCall(r.ctx, s.deps.DB, session.ID, r.token, now, now.Add(longCallReadMark)); err != nil {
			// Reads then miss "in progress" while it runs; the call itself
			// is unaffected and the database error surfaces below if it lasts.
			s.logger().Warn("flylab: long call not marked on its session", "session", session.ID, "error", err)
		} else {
			r.marked = true
		}
	}
	return r
}

// settle lifts this call's mark and, when the call committed a revision
// its workflow could not store, marks the snapshot stale. It fails only
// when that stale mark could not be written: the caller must then not be
// told of the revision (it answers a retryable failure instead).
func (r *readRoute) settle(out wf.ToolOutcome, callErr error) error {
	committed := callErr == nil && out.Failure == nil
	if committed && !out.Stored {
		return models.MarkSnapshotStale(r.ctx, r.s.deps.DB, r.session.ID, time.Now().Add(staleSnapshotReadMark))
	}
	if callErr != nil && r.marked {
		if err := models.ShortenReadMark(r.ctx, r.s.deps.DB, r.session.ID, r.token, time.Now().Add(lostAnswerReadMark)); err != nil {
			r.s.logger().Warn("flylab: session read mark not shortened; it lapses", "session", r.session.ID, "error", err)
		}
		return nil
	}
	stored := committed && r.session.WorkflowReadsToken == models.StaleSnapshotToken
	if !r.marked && !stored {
		return nil
	}
	if err := models.ClearReadMark(r.ctx, r.s.deps.DB, r.session.ID, r.token, stored); err != nil {
		r.s.logger().Warn("flylab: session read mark not cleared; it lapses", "session", r.session.ID, "error", err)
	}
	return nil
}

// logger is the api's logger (the process default for a Service built
// without one, as tests do).
func (s *Service) logger() *slog.Logger {
	if s.deps.Log != nil {
		return s.deps.Log
	}
	return slog.Default()
}
