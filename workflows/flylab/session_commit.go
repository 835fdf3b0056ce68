package flylab

import (
	"go.temporal.io/sdk/workflow"
)

// oneCommitVersion marks the change that stores find_fly_circuits' result
// with the commit's snapshot, in one database transaction instead of two;
// histories recorded before it replay with the activity storing the
// result itself.
const oneCommitVersion = "flylab-find-one-commit"

// deferredTools compute a result the snapshot's activity can compute
// again from the call's arguments alone (a pure function of them), so the
// result is stored in the snapshot's transaction.
var deferredTools = map[string]bool{ToolFind: true}

// defersResult says whether this call's result is stored with its
// snapshot. It reads the version only for those tools, so replay meets
// the same markers.
func defersResult(ctx workflow.Context, tool string) bool {
	return deferredTools[tool] && workflow.GetVersion(ctx, oneCommitVersion, workflow.DefaultVersion, 1) == 1
}

// deferredResult names what the snapshot stores for call.
func deferredResult(call ToolCall, effect ToolEffect) *DeferredResult {
	d := &DeferredResult{Tool: call.Tool, Key: call.ResultKey, Args: call.Args}
	if len(effect.CreatedArtifactIDs) > 0 {
		d.ArtifactID = effect.CreatedArtifactIDs[0]
	}
	return d
}

// uncommit is what undoes a commit whose result could not be stored: the
// state, the commit count and the operation record as they were.
type uncommit struct {
	state     SessionState
	committed int
	opKey     string
	hadOp     bool
	op        OperationRecord
}

// beforeCommit remembers what a commit changes. apply replaces the
// state's fields rather than writing through them, except the operation
// record, which is remembered on its own.
func (s *session) beforeCommit(opKey string) uncommit {
	u := uncommit{state: s.state, committed: s.committed, opKey: opKey}
	if opKey != "" {
		u.op, u.hadOp = s.state.Operations[opKey]
	}
	return u
}

// undo restores what beforeCommit remembered.
func (s *session) undo(u uncommit) {
	ops := s.state.Operations
	s.state, s.committed = u.state, u.committed
	if u.opKey == "" {
		return
	}
	switch {
	case u.hadOp:
		ops[u.opKey] = u.op
	case ops != nil:
		delete(ops, u.opKey)
	}
}
