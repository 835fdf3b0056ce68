package temporalerr

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/converter"
)

// Querier is the part of the Temporal client a workflow query needs.
type Querier interface {
	QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, args ...any) (converter.EncodedValue, error)
}

// Backoff bounds the retries of one read: the whole budget, the first
// wait and the longest wait.
type Backoff struct {
	Budget, First, Max time.Duration
}

// ErrBudgetSpent wraps the last transient failure of a query whose
// retry budget ran out.
var ErrBudgetSpent = errors.New("temporal: no answer within the retry budget")

// Query runs query on workflowID's latest run and decodes the answer
// into out, retrying Transient failures with doubling waits until b's
// budget is spent (then ErrBudgetSpent) or ctx ends. One attempt may
// take the rest of the budget: Temporal itself hands a query that a dead
// sticky worker never picked up to a live worker (after the sticky
// schedule-to-start timeout), and cutting the attempt short would cut
// that hand-over short too. Any other error (NotFound, a handler's
// failure) is returned as it is.
func Query(ctx context.Context, q Querier, workflowID, query string, out any, b Backoff) error {
	return Retry(ctx, b, func(qctx context.Context) error {
		v, err := q.QueryWorkflow(qctx, workflowID, "", query)
		if err == nil {
			err = v.Get(out)
		}
		return err
	})
}
