package flylab

import (
	"context"
	"encoding/json"
	"errors"

	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// reconcileDecision applies to a stored state the operator decision its
// current experiment's workflow recorded but could not tell the session,
// because the session workflow was gone at the time (the experiment
// workflow is the authority for the gate; the experiment row mirrors it).
// The decision counts as one revision, as it does in the workflow.
func reconcileDecision(ctx context.Context, db *gorm.DB, st *wf.SessionState) error {
	e := st.Experiment
	if e == nil || e.Status != wf.ExperimentAwaiting {
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
	switch row.Status {
	case models.StatusApproved:
		var a struct {
			ApprovedAt string `json:"approved_at"`
		}
		if row.Approval != "" {
			if err := json.Unmarshal([]byte(row.Approval), &a); err != nil {
				return err
			}
		}
		e.Status, e.ApprovedAt, e.Reason = wf.ExperimentApproved, a.ApprovedAt, row.Reason
	case models.StatusRejected:
		e.Status, e.Reason = wf.ExperimentRejected, row.Reason
	default:
		return nil
	}
	st.Revision++
	return nil
}
