package flylab

import (
	"context"
	"encoding/json"
	"errors"

	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// reconcileDecision applies to a stored state the operator decision (or
// the expiry of the gate or of an unused approval) its current
// experiment's workflow recorded but could not tell the session,
// because the session workflow was gone at the time (the experiment
// workflow is the authority for the gate; the experiment row mirrors it).
// The decision counts as one revision, as it does in the workflow. It
// reports whether it applied one: a live session workflow may not have
// mirrored that decision yet, so the caller asks it.
func reconcileDecision(ctx context.Context, db *gorm.DB, st *wf.SessionState) (bool, error) {
	e := st.Experiment
	if e == nil || (e.Status != wf.ExperimentAwaiting && e.Status != wf.ExperimentApproved) {
		return false, nil
	}
	row, err := models.Find[models.Experiment](ctx, db, st.SessionID, e.ID)
	if errors.Is(err, models.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if row.ProtocolHash != e.ProtocolHash {
		return false, nil
	}
	switch {
	case row.Status == models.StatusRevoked:
		// The gate or the unused approval expired (a revocation by a new
		// design would have replaced the session's experiment first).
		e.Status, e.Reason = wf.ExperimentRevoked, row.Reason
	case e.Status != wf.ExperimentAwaiting:
		return false, nil
	case row.Status == models.StatusApproved:
		var a struct {
			ApprovedAt string `json:"approved_at"`
		}
		if row.Approval != "" {
			if err := json.Unmarshal([]byte(row.Approval), &a); err != nil {
				return false, err
			}
		}
		e.Status, e.ApprovedAt, e.Reason = wf.ExperimentApproved, a.ApprovedAt, row.Reason
	case row.Status == models.StatusRejected:
		e.Status, e.Reason = wf.ExperimentRejected, row.Reason
	default:
		return false, nil
	}
	st.Revision++
	return true, nil
}
