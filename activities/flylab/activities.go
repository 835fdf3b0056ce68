// Package flylab holds FlyLab's Temporal activities: thin adapters that
// call the pure science core (package flylab) and persist through
// models/flylab. Caller-fixable problems come back as a ToolFailure in the
// effect (never retried); infrastructure errors are returned so Temporal
// retries the activity. Every write is keyed by a content id or the
// operation key, so a retry never writes twice.
package flylab

import (
	"encoding/json"
	"errors"

	"go.temporal.io/sdk/activity"
	"gorm.io/gorm"

	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// Activities are the FlyLab tool activities.
type Activities struct {
	DB *gorm.DB
	// SchemaURL names the evidence-export schema in stored save results (its
	// path); the API resolves it against its own public URL.
	SchemaURL string
}

// Registry is the part of a Temporal worker activities register on.
type Registry interface {
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register adds every FlyLab activity under its stable name.
func (a *Activities) Register(r Registry) {
	for name, fn := range map[string]any{
		wf.ActivityFindCircuits: a.FindCircuits, wf.ActivityDraftHypothesis: a.DraftHypothesis,
		wf.ActivityDesignTrial: a.DesignTrial, wf.ActivitySimulate: a.Simulate, wf.ActivityAnalyze: a.Analyze,
		wf.ActivityCompare: a.Compare, wf.ActivitySaveEvidence: a.SaveEvidence, wf.ActivityRecordDecision: a.RecordDecision,
		wf.ActivitySaveSession: a.SaveSession, wf.ActivityVerifyDecision: a.VerifyDecision,
		wf.ActivityPublish: a.PublishStaged,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}

// domainFailure turns a science-core error into a contract failure; any
// other error is infrastructure and is returned for a retry.
func domainFailure(err error) (*wf.ToolFailure, error) {
	var se *science.Error
	if errors.As(err, &se) {
		d := se.Details
		if d == nil {
			d = map[string]any{}
		}
		return &wf.ToolFailure{Code: se.Code, Message: se.Message, Retryable: se.Retryable, Details: d}, nil
	}
	return nil, err
}

func fail(code, message string, details map[string]any) wf.ToolEffect {
	if details == nil {
		details = map[string]any{}
	}
	return wf.ToolEffect{Failure: &wf.ToolFailure{Code: code, Message: message, Details: details}}
}

// effectOf returns the failure effect of a science error, or the error.
func effectOf(err error) (wf.ToolEffect, error) {
	f, ierr := domainFailure(err)
	if ierr != nil {
		return wf.ToolEffect{}, ierr
	}
	return wf.ToolEffect{Failure: f}, nil
}

func decodeArgs(raw json.RawMessage, v any) error { return json.Unmarshal(raw, v) }

// toMap round-trips a value through JSON so tool data can gain fields.
func toMap(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(raw, &m)
}
