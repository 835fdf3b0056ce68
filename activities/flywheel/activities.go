// Package flywheel holds the rollout workflow's activities: short,
// idempotent database writes keyed by (rollout, lease epoch), so a retried
// activity never writes twice.
package flywheel

import (
	"context"
	"time"

	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/flywheel"
	wf "github.com/gatehouse/gatehouse/workflows/flywheel"
)

// Activities carries the database the activities write.
type Activities struct {
	DB *gorm.DB
	// Now is the clock (time.Now when nil); the lease compare-and-swap in
	// the API uses the same wall clock.
	Now func() time.Time
}

func (a *Activities) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// ExpireLease revokes a lapsed lease unless a heartbeat extended it in the
// database (see models/flywheel.ExpireLease).
func (a *Activities) ExpireLease(ctx context.Context, in wf.ExpireLeaseInput) (wf.ExpireLeaseResult, error) {
	res, err := models.ExpireLease(ctx, a.DB, in.RolloutID, in.Epoch, in.Heartbeats, a.now())
	if err != nil {
		return wf.ExpireLeaseResult{}, err
	}
	return wf.ExpireLeaseResult{Outcome: res.Outcome, ExpiresAt: res.ExpiresAt}, nil
}

// Finalize mirrors the workflow's terminal decision into the rollout row.
func (a *Activities) Finalize(ctx context.Context, in wf.FinalizeInput) (wf.FinalizeResult, error) {
	status, reason, err := models.Finalize(ctx, a.DB, in.RolloutID, in.Status, in.Reason, in.Detail, in.Heartbeats, a.now())
	if err != nil {
		return wf.FinalizeResult{}, err
	}
	return wf.FinalizeResult{Status: status, Reason: reason}, nil
}
