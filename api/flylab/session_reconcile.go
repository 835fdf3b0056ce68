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
// The decision counts as one revision, as it does in the workflow.
func reconcileDecision(ctx context.Context, db *gorm.DB, st *wf.SessionState) error {
	e := st.Experiment
	if e == nil || (e.Status != wf.ExperimentAwaiting && e.Status != wf.ExperimentApproved) {
		return nil
	}
	row, err := models.Find[models.Experiment](ctx, db, st.SessionID, e.ID)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if row.ProtocolHash != e.ProtocolHash {
		return nil
	}
	switch {
	case row.Status == models.StatusRevoked:
		// The gate or the unused approval expired (a revocation by a new
		// design would have replaced the session's experiment first).
		e.Status, e.Reason = wf.ExperimentRevoked, row.Reason
	case e.Status != wf.ExperimentAwaiting:
		return nil
	case row.Status == models.StatusApproved:
		var a struct {
			ApprovedAt string `json:"approved_at"`
		}
		if row.Approval != "" {
			if err := json.Unmarshal([]byte(row.Approval), &a); err != nil {
				return err
			}
		}
		e.Status, e.ApprovedAt, e.Reason = wf.ExperimentApproved, a.ApprovedAt, row.Reason
	case row.Status == models.StatusRejected:
		e.Status, e.Reason = wf.ExperimentRejected, row.Reason
	default:
		return nil
	}
	st.Revision++
	return nil
}
