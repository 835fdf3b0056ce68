package flylab

import (
	"context"

	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// SaveSession stores the session workflow's committed state, run as a
// local activity at every commit. The upsert is keyed by session id and
// never moves the stored revision back, so a retried or late write is
// harmless.
//
// A snapshot that carries the commit's deferred result stores the result
// in the same transaction, computed again from the call's arguments.
func (a *Activities) SaveSession(ctx context.Context, in wf.StateSnapshot) error {
	if in.Result == nil {
		return models.SaveSnapshot(ctx, a.DB, in.SessionID, in.Revision, in.State)
	}
	data, err := recomputeResult(*in.Result)
	if err != nil {
		return err
	}
	return models.SaveSnapshotWithResult(ctx, a.DB, in.SessionID, in.Revision, in.State,
		models.ToolResult{Key: in.Result.Key, SessionID: in.SessionID, Tool: in.Result.Tool, Data: string(data)})
}

// PublishStaged publishes the batch or bundle a call staged, run as a
// local activity once the call passed its last cancel check.
func (a *Activities) PublishStaged(ctx context.Context, in wf.PublishRequest) error {
	return models.PublishStaged(ctx, a.DB, in.SessionID, in.OperationKey)
}
