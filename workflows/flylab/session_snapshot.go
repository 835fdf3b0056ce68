package flylab

import (
	"encoding/json"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// snapshotVersion marks the change that stores the committed state in the
// database at every commit; histories recorded before it replay without
// the local activity.
const snapshotVersion = "flylab-session-snapshot"

// snapshotOptions keep the write short: it is one keyed upsert, run in the
// worker that holds the workflow task, before the Update answers.
var snapshotOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, BackoffCoefficient: 2,
		MaximumInterval: 2 * time.Second, MaximumAttempts: 5},
}

// persist stores the committed state unless a snapshot of this revision is
// already stored. The running workflow stays the authority; the snapshot is
// what reads answer from once the workflow is gone (closed and purged after
// the namespace's retention, or terminated) and what a restarted workflow
// continues from. A failed write is not fatal: the state stays committed
// here and the next commit stores it whole.
func (s *session) persist(ctx workflow.Context) {
	if s.saved >= s.state.Revision {
		return
	}
	if workflow.GetVersion(ctx, snapshotVersion, workflow.DefaultVersion, 1) != 1 {
		return
	}
	if err := s.storeSnapshot(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("session snapshot not stored; the next commit stores it", "revision", s.state.Revision, "error", err)
	}
}

// storeSnapshot stores the committed state, with result when it is set,
// and records the revision as saved.
func (s *session) storeSnapshot(ctx workflow.Context, result *DeferredResult) error {
	snap := s.state
	snap.Running = ""
	raw, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	in := StateSnapshot{SessionID: snap.SessionID, Revision: snap.Revision, State: raw, Result: result}
	lctx := workflow.WithLocalActivityOptions(ctx, snapshotOptions)
	if err := workflow.ExecuteLocalActivity(lctx, ActivitySaveSession, in).Get(ctx, nil); err != nil {
		return err
	}
	s.saved = max(s.saved, in.Revision)
	return nil
}
