package research

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/gatehouse/gatehouse/internal/temporalerr"
	models "github.com/gatehouse/gatehouse/models/research"
)

// Bounds of reading a running workflow's state through its query.
const (
	// stateReadBudget is how long a read retries a query that failed
	// transiently (a worker died holding it, Temporal restarting): with
	// two workers a killed one costs a delay, not an error.
	stateReadBudget = 15 * time.Second
	// stateRetryFirst and stateRetryMax are the backoff between attempts.
	stateRetryFirst = 200 * time.Millisecond
	stateRetryMax   = 2 * time.Second
)

// errWorkflowGone means Temporal knows no such workflow: it closed and was
// purged after the namespace's retention (or was deleted).
var errWorkflowGone = errors.New("research: the workflow is closed and purged")

// workflowState reads a research workflow's state into out. Once the
// workflow stored its final state (its last step), the database row is
// the authority and Temporal is not asked; before that the workflow's
// query is, retried while it fails transiently. final says the answer
// came from the stored final state. A workflow Temporal no longer knows
// answers errWorkflowGone (the caller may rebuild the state from its rows).
func (s *Service) workflowState(ctx context.Context, workflowID, query string, out any) (final bool, err error) {
	if ok, err := s.storedFinalState(ctx, workflowID, out); ok || err != nil {
		return ok, err
	}
	err = s.queryState(ctx, workflowID, query, out)
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) {
		return false, err
	}
	// It may have stored its final state and closed since the first look.
	if ok, err := s.storedFinalState(ctx, workflowID, out); ok || err != nil {
		return ok, err
	}
	return false, errWorkflowGone
}

// storedFinalState decodes the workflow's stored final state into out.
func (s *Service) storedFinalState(ctx context.Context, workflowID string, out any) (bool, error) {
	row, ok, err := models.FinalState(ctx, s.DB, workflowID)
	if !ok || err != nil {
		return false, err
	}
	return true, json.Unmarshal([]byte(row.StateJSON), out)
}

// queryState runs the workflow's query, retrying a transient failure with
// backoff for up to stateReadBudget within ctx; once that is spent it
// answers a retryable unavailable.
func (s *Service) queryState(ctx context.Context, workflowID, query string, out any) error {
	err := temporalerr.Query(ctx, s.Temporal, workflowID, query, out,
		temporalerr.Backoff{Budget: stateReadBudget, First: stateRetryFirst, Max: stateRetryMax})
	if errors.Is(err, temporalerr.ErrBudgetSpent) {
		return &ToolError{Code: CodeUnavailable, Message: "the workflow " + workflowID + " did not answer its state query within " +
			stateReadBudget.String() + " (Temporal or every worker unreachable); retry", Details: map[string]any{"retryable": true}}
	}
	return err
}
