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
func (a *Activities) SaveSession(ctx context.Context, in wf.StateSnapshot) error {
	return models.SaveSnapshot(ctx, a.DB, in.SessionID, in.Revision, in.State)
}

// PublishStaged publishes the batch or bundle a call staged, run as a
// local activity once the call passed its last cancel check.
func (a *Activities) PublishStaged(ctx context.Context, in wf.PublishRequest) error {
	return models.PublishStaged(ctx, a.DB, in.SessionID, in.OperationKey)
}
