package research

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// ErrNoRecord means a decision record a signal names does not exist.
var ErrNoRecord = errors.New("research: no such record")

// ArtifactByID loads an artifact row (ErrNoRecord if none).
func ArtifactByID(ctx context.Context, db *gorm.DB, id string) (Artifact, error) {
	var a Artifact
	return a, take(db.WithContext(ctx).Where("id = ?", id), &a)
}

// ReviewDecision is a review request with its session, if one was opened.
type ReviewDecision struct {
	Request ReviewRequest
	Session *ReviewSession
}

// ReviewDecisionByID loads a review request and its session (ErrNoRecord
// if the request does not exist).
func ReviewDecisionByID(ctx context.Context, db *gorm.DB, requestID string) (ReviewDecision, error) {
	var d ReviewDecision
	if err := take(db.WithContext(ctx).Where("id = ?", requestID), &d.Request); err != nil {
		return d, err
	}
	var s ReviewSession
	err := take(db.WithContext(ctx).Where("request_id = ?", requestID), &s)
	switch {
	case err == nil:
		d.Session = &s
	case !errors.Is(err, ErrNoRecord):
		return d, err
	}
	return d, nil
}

// ProposalByID loads a consolidation proposal (ErrNoRecord if none).
func ProposalByID(ctx context.Context, db *gorm.DB, id string) (ConsolidationProposal, error) {
	var p ConsolidationProposal
	return p, take(db.WithContext(ctx).Where("id = ?", id), &p)
}

// ExperimentByID loads an experiment row (ErrNoRecord if none).
func ExperimentByID(ctx context.Context, db *gorm.DB, id string) (Experiment, error) {
	var e Experiment
	return e, take(db.WithContext(ctx).Where("id = ?", id), &e)
}

func take(q *gorm.DB, out any) error {
	err := q.Take(out).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNoRecord
	}
	return err
}

// StorageObjectByID loads a storage object row (ErrNoRecord if none).
func StorageObjectByID(ctx context.Context, db *gorm.DB, id string) (StorageObject, error) {
	var o StorageObject
	return o, take(db.WithContext(ctx).Where("id = ?", id), &o)
}
