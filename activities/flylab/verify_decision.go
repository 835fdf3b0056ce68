package flylab

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"

	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// VerifyDecision matches a gate signal with the operator decision record
// the API wrote after authenticating the operator. Only a record for the
// same experiment, decision and protocol hash makes the signal authentic;
// the verdict then carries the record's operator and reason, never the
// signal's. Anything else (no decision id, an unknown id, a record for
// another experiment, decision or hash) is refused: the refusal is logged
// and stored once per attempt key, so an operator sees forged signals.
func (a *Activities) VerifyDecision(ctx context.Context, c wf.DecisionCheck) (wf.DecisionVerdict, error) {
	why, rec, err := a.checkDecision(ctx, c)
	if err != nil {
		return wf.DecisionVerdict{}, err
	}
	if why == "" {
		return wf.DecisionVerdict{Authentic: true, Operator: rec.Operator, Reason: rec.Reason}, nil
	}
	if activity.IsActivity(ctx) {
		activity.GetLogger(ctx).Warn("FlyLab gate signal refused", "experiment_id", c.ExperimentID, "decision", c.Status,
			"decision_id", c.DecisionID, "claimed_operator", c.ClaimedOperator, "why", why)
	}
	err = models.RecordRefusal(ctx, a.DB, models.GateRefusal{Key: c.AttemptKey, ExperimentID: c.ExperimentID,
		Signal: c.Status, DecisionID: truncate(c.DecisionID, 60), ClaimedOperator: truncate(c.ClaimedOperator, 200), Why: why})
	if err != nil {
		return wf.DecisionVerdict{}, err
	}
	return wf.DecisionVerdict{Refusal: why}, nil
}

// checkDecision returns why the signal is not authentic ("" when it is).
func (a *Activities) checkDecision(ctx context.Context, c wf.DecisionCheck) (string, models.OperatorDecision, error) {
	if c.DecisionID == "" {
		return "the signal names no operator decision record", models.OperatorDecision{}, nil
	}
	rec, err := models.DecisionByID(ctx, a.DB, c.DecisionID)
	if errors.Is(err, models.ErrNotFound) {
		return "no operator decision record " + truncate(c.DecisionID, 60), rec, nil
	} else if err != nil {
		return "", rec, err
	}
	switch {
	case rec.ExperimentID != c.ExperimentID:
		return "the decision record is for another experiment", rec, nil
	case rec.Status != c.Status:
		return "the decision record is a " + rec.Status + ", not a " + c.Status, rec, nil
	case rec.ProtocolHash != c.ProtocolHash:
		return "the decision record is for another protocol hash", rec, nil
	}
	return "", rec, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
